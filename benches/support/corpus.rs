//! The synthetic F# corpus the benchmarks index: deterministic (a fixed xorshift seed), several
//! megabytes of modules with records, unions, classes, matches, pipelines and copy-and-update,
//! plus a `Corpus.fsproj` compiling every file. Shared by `syntax_index` and `symbol_search`.

#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A small deterministic generator (xorshift64*), so every run sees the same corpus.
pub struct Random(pub u64);

impl Random {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, limit: u64) -> u64 {
        self.next() % limit.max(1)
    }
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

pub const NOUNS: &[&str] = &[
    "Order", "Customer", "Invoice", "Payment", "Shipment", "Product", "Account", "Ledger", "Session", "Token",
    "Report", "Metric", "Sensor", "Reading", "Route", "Vehicle", "Driver", "Ticket", "Booking", "Review",
];
pub const FIELDS: &[&str] = &[
    "Id", "Name", "Amount", "Quantity", "Created", "Updated", "Status", "Owner", "Tags", "Total", "Price", "Notes",
    "Region", "Score", "Count", "Limit", "Enabled", "Version", "Email", "Address",
];
pub const TYPES: &[&str] =
    &["int", "string", "decimal", "float", "bool", "DateTime", "Guid", "string list", "int option"];

pub fn generate_file(random: &mut Random, file_number: usize, with_header: bool) -> String {
    let mut text = String::new();
    let area = random.pick(NOUNS);
    if with_header {
        let _ = writeln!(text, "/// Generated code for the {area} area.");
        let _ = writeln!(text, "module Acme.Domain{}.{}{}\n", file_number % 7, area, file_number);
        let _ = writeln!(text, "open System\nopen System.Collections.Generic\n");
    }
    let type_count = 4 + random.below(4) as usize;
    let mut records: Vec<(String, Vec<String>)> = Vec::new();
    for type_number in 0..type_count {
        let name = format!("{}{}{}", random.pick(NOUNS), random.pick(NOUNS), type_number);
        let mut fields: Vec<String> = Vec::new();
        let field_count = 3 + random.below(6) as usize;
        let _ = writeln!(text, "/// A {name}.\ntype {name} =\n    {{");
        for field_number in 0..field_count {
            let field = format!("{}{}", random.pick(FIELDS), field_number);
            let mutable = if random.below(8) == 0 { "mutable " } else { "" };
            let _ = writeln!(text, "      {mutable}{field}: {}", random.pick(TYPES));
            fields.push(field);
        }
        let _ = writeln!(text, "    }}\n");
        records.push((name, fields));
    }
    let union_name = format!("{area}Event{file_number}");
    let _ = writeln!(text, "type {union_name} =");
    for case in 0..5 {
        let _ = writeln!(text, "    | {}{case} of reason: string * count: int", random.pick(NOUNS));
    }
    let _ = writeln!(text, "    | Nothing{file_number}\n");
    for (name, fields) in &records {
        let lower = name.to_lowercase();
        let first = &fields[0];
        let last = &fields[fields.len() - 1];
        let _ = writeln!(text, "let create{name} () : {name} =\n    {{");
        for field in fields {
            let _ = writeln!(text, "      {field} = Unchecked.defaultof<_>");
        }
        let _ = writeln!(text, "    }}\n");
        let _ = writeln!(
            text,
            "let update{name} ({lower}: {name}) =\n    {{ {lower} with {first} = {lower}.{first}; {last} = {lower}.{last} }}\n"
        );
        let _ = writeln!(
            text,
            "let describe{name} ({lower}: {name}) =\n    match {lower} with\n    | {{ {first} = value }} when not (isNull (box value)) -> $\"{name} {{{lower}.{last}}}\"\n    | _ -> \"empty\"\n"
        );
        let _ = writeln!(
            text,
            "let summarise{name} (items: {name} list) =\n    items\n    |> List.filter (fun item -> not (isNull (box item.{first})))\n    |> List.map (fun item -> item.{last})\n    |> List.length\n"
        );
    }
    let class_name = format!("{area}Service{file_number}");
    let _ = writeln!(
        text,
        "type {class_name}(capacity: int) =\n    let cache = Dictionary<string, int>()\n    let mutable hits = 0\n    member _.Capacity = capacity\n    member this.Record(key: string) =\n        hits <- hits + 1\n        match cache.TryGetValue key with\n        | true, value -> cache.[key] <- value + 1\n        | false, _ -> cache.[key] <- 1\n    member private _.Hits = hits\n    static member Create() = {class_name}(16)\n    interface IDisposable with\n        member _.Dispose() = cache.Clear()\n"
    );
    let _ = writeln!(text, "let handle{file_number} (event: {union_name}) =\n    match event with");
    let _ = writeln!(text, "    | Nothing{file_number} -> 0");
    let _ = writeln!(
        text,
        "    | _ ->\n        let results =\n            [ for number in 1 .. 10 do\n                if number % 2 = 0 then\n                    yield number * 2 ]\n        results |> List.sum\n"
    );
    let _ = writeln!(
        text,
        "let workflow{file_number} =\n    async {{\n        let! value = async {{ return 42 }}\n        do! Async.Sleep 1\n        return value + 1\n    }}\n"
    );
    text
}

pub fn generate_corpus(directory: &Path, megabytes: f64) -> Vec<PathBuf> {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let target = (megabytes * 1_000_000.0) as usize;
    let mut written = 0usize;
    let mut files = Vec::new();
    let mut file_number = 0;
    while written < target {
        // Files of different sizes: mostly 5-40 KB, a few large ones.
        let mut text = String::new();
        let chunks = if file_number % 40 == 0 { 30 } else { 1 + random.below(6) as usize };
        for chunk in 0..chunks {
            // Only the first chunk carries the file's module header.
            text.push_str(&generate_file(&mut random, file_number * 100 + chunk, chunk == 0));
        }
        let path = directory.join(format!("src/Area{}/File{file_number:04}.fs", file_number % 9));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create corpus directory");
        }
        std::fs::write(&path, &text).expect("write corpus file");
        written += text.len();
        files.push(path);
        file_number += 1;
    }
    let items: String = files
        .iter()
        .map(|path| {
            format!("    <Compile Include=\"{}\" />\n", path.strip_prefix(directory).expect("inside").display())
        })
        .collect();
    std::fs::write(
        directory.join("Corpus.fsproj"),
        format!("<Project Sdk=\"Microsoft.NET.Sdk\">\n  <ItemGroup>\n{items}  </ItemGroup>\n</Project>\n"),
    )
    .expect("write project");
    files
}
