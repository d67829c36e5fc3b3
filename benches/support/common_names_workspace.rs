//! A generated monorepo in which the same names are declared again and again, for the
//! `find_scale` benchmark and the scale tests: N projects of 20 modules each, every project
//! referencing the one before it (a chain), and every module declaring the same four records
//! (`R0`…`R3`, each with `Id`, `Name` and `Count`) and the same functions (`create`, `map`,
//! `summaryR0`…, `bumpR0`…), using its own and, qualified, the previous module's. So a name
//! like `summaryR0` is declared 20 × N times, `R0.Count` is a field of 20 × N records, and a
//! qualified name such as `Proj0250.M010.bumpR3` has a last segment that every file holds.
//! About 94 lines and 2.9 KB per file: 500 projects are 10,000 files, 940 k lines.

#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Modules (files) per generated project.
pub const MODULES_PER_PROJECT: usize = 20;

/// A function declared once in every module (and called in it and in the next module).
pub const COMMON_FUNCTION: &str = "summaryR0";
/// A field of a record declared in every module.
pub const COMMON_FIELD: &str = "R0.Count";

/// What the generator wrote.
pub struct CommonNamesWorkspace {
    pub projects: usize,
    pub files: Vec<PathBuf>,
    pub bytes: u64,
    pub lines: u64,
}

/// The module path of `module` in `project`: `Proj0005.M003`.
pub fn module_name(project: usize, module: usize) -> String {
    format!("Proj{project:04}.M{module:03}")
}

/// A field of one module's record, fully qualified: `Proj0005.M003.R0.Count`.
pub fn qualified_field(project: usize, module: usize) -> String {
    format!("{}.R0.Count", module_name(project, module))
}

/// One module's function, fully qualified; its last segment is declared in every module.
pub fn qualified_function(project: usize, module: usize) -> String {
    format!("{}.bumpR3", module_name(project, module))
}

/// The module before `module` of `project` in compile order (the previous project's last one
/// for a project's first), if any.
fn previous_module(project: usize, module: usize) -> Option<(usize, usize)> {
    match (project, module) {
        (0, 0) => None,
        (_, 0) => Some((project - 1, MODULES_PER_PROJECT - 1)),
        _ => Some((project, module - 1)),
    }
}

fn module_file(project: usize, module: usize) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "module {}\n", module_name(project, module));
    for record in 0..4 {
        let _ = writeln!(text, "/// A record every module declares.");
        let _ = writeln!(text, "type R{record} =\n    {{ Id: int\n      Name: string\n      Count: int }}\n");
    }
    let _ = writeln!(text, "let create id name : R0 =\n    {{ Id = id; Name = name; Count = 0 }}\n");
    let _ = writeln!(
        text,
        "let map (change: int -> int) (record: R0) =\n    {{ record with Count = change record.Count }}\n"
    );
    for record in 0..4 {
        let _ = writeln!(
            text,
            "let summaryR{record} (record: R{record}) =\n    sprintf \"%d %s %d\" record.Id record.Name record.Count\n"
        );
        let _ =
            writeln!(text, "let bumpR{record} (record: R{record}) =\n    {{ record with Count = record.Count + 1 }}\n");
    }
    let _ = writeln!(
        text,
        "let useLocal () =\n    let record = create {module} \"m{module}\" |> map ((+) {project})\n    summaryR0 record\n"
    );
    if let Some((before_project, before_module)) = previous_module(project, module) {
        let before = module_name(before_project, before_module);
        let _ = writeln!(
            text,
            "let usePrevious () =\n    let record: {before}.R0 = {before}.create {project} \"p\"\n    let other: {before}.R3 = {{ Id = 1; Name = \"q\"; Count = 2 }}\n    ({before}.summaryR0 record, {before}.bumpR3 other)\n"
        );
    }
    // Filler with ordinary code, so files have a realistic size.
    for number in 0..5 {
        let _ = writeln!(
            text,
            "let compute{number} (items: int list) =\n    items\n    |> List.filter (fun item -> item % {} = 0)\n    |> List.map (fun item -> item * {number})\n    |> List.sum\n",
            number + 2
        );
    }
    text
}

fn project_xml(project: usize, files: &[String]) -> String {
    let items: String = files.iter().map(|file| format!("    <Compile Include=\"{file}\" />\n")).collect();
    let reference = if project == 0 {
        String::new()
    } else {
        let before = format!("Proj{:04}", project - 1);
        format!("  <ItemGroup>\n    <ProjectReference Include=\"../{before}/{before}.fsproj\" />\n  </ItemGroup>\n")
    };
    format!(
        "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n    <TargetFramework>net8.0</TargetFramework>\n  </PropertyGroup>\n  <ItemGroup>\n{items}  </ItemGroup>\n{reference}</Project>\n"
    )
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create workspace directory");
    }
    std::fs::write(path, text).expect("write workspace file");
}

/// Writes the workspace of `projects` projects under `root`.
pub fn generate(root: &Path, projects: usize) -> CommonNamesWorkspace {
    let mut files = Vec::new();
    let (mut bytes, mut lines) = (0u64, 0u64);
    for project in 0..projects {
        let directory = format!("src/Proj{project:04}");
        let names: Vec<String> = (0..MODULES_PER_PROJECT).map(|module| format!("M{module:03}.fs")).collect();
        for (module, name) in names.iter().enumerate() {
            let text = module_file(project, module);
            let path = root.join(format!("{directory}/{name}"));
            write(&path, &text);
            bytes += text.len() as u64;
            lines += text.lines().count() as u64;
            files.push(path);
        }
        write(&root.join(format!("{directory}/Proj{project:04}.fsproj")), &project_xml(project, &names));
    }
    CommonNamesWorkspace { projects, files, bytes, lines }
}
