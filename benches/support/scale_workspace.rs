//! A generated multi-project F# workspace for the `find_scale` benchmark and the large-find
//! test: N projects of 20 files each, every project referencing the one before it (a chain),
//! one shared record with mutable fields used in every file in all five field-site shapes
//! (construction, copy-and-update, mutation, pattern, read), one function called from every
//! file, and one helper per file called once (the rare qualified names). About 94 lines and
//! 2.8 KB per file, so 500 projects are ≈ 10,000 files, 28 MB, 940 k lines.

#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Files per generated project.
pub const FILES_PER_PROJECT: usize = 20;

/// The shared record's qualified field, used in every file in all five shapes.
pub const FIELD_QUERY: &str = "Parcel.Weight";
/// The function every file calls once (plus its declaration): one site per file.
pub const FREQUENT_NAME: &str = "stampParcel";

/// What the generator wrote.
pub struct ScaleWorkspace {
    pub projects: usize,
    pub files: Vec<PathBuf>,
    pub bytes: u64,
    pub lines: u64,
}

/// The qualified name of the helper declared (and called once) in `file` of `project`.
pub fn rare_qualified_name(project: usize, file: usize) -> String {
    format!("Scale.P{project}.F{file}.rareHelper{project}x{file}")
}

fn core_file() -> String {
    "module Scale.Core.Shared\n\n\
     /// The record every generated file uses.\n\
     type Parcel =\n    { mutable Weight: decimal\n      mutable Label: string\n      Origin: string }\n\n\
     /// Marks a parcel as seen.\n\
     let stampParcel (parcel: Parcel) = parcel.Label <- parcel.Label + \"*\"\n"
        .to_owned()
}

fn project_file(project: usize, file: usize) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "module Scale.P{project}.F{file}\n\nopen Scale.Core.Shared\n");
    let _ = writeln!(text, "/// A record local to this file.");
    let _ = writeln!(text, "type Crate{project}x{file} =\n    {{ mutable Count: int\n      Name: string }}\n");
    // The five field-site shapes of Parcel.Weight.
    let _ = writeln!(
        text,
        "let makeParcel () : Parcel =\n    {{ Weight = {file}.0m; Label = \"p{project}\"; Origin = \"f{file}\" }}\n"
    );
    let _ = writeln!(text, "let heavier (parcel: Parcel) =\n    {{ parcel with Weight = 1.5m }}\n");
    let _ = writeln!(text, "let reset (parcel: Parcel) =\n    parcel.Weight <- 0.0m\n");
    let _ = writeln!(
        text,
        "let describe (parcel: Parcel) =\n    match parcel with\n    | {{ Weight = weight }} when weight > 10.0m -> \"heavy\"\n    | _ -> \"light\"\n"
    );
    let _ =
        writeln!(text, "let total (parcels: Parcel list) =\n    parcels |> List.sumBy (fun parcel -> parcel.Weight)\n");
    let _ = writeln!(text, "let touch (parcel: Parcel) =\n    stampParcel parcel\n    parcel\n");
    let _ = writeln!(text, "let rareHelper{project}x{file} (value: int) = value * {file} + {project}\n");
    let _ = writeln!(text, "let useRare () = rareHelper{project}x{file} 3\n");
    // Filler with ordinary code, so files have a realistic size.
    for number in 0..8 {
        let _ = writeln!(
            text,
            "let compute{number} (items: int list) =\n    items\n    |> List.filter (fun item -> item % {} = 0)\n    |> List.map (fun item -> item * {number})\n    |> List.sum\n",
            number + 2
        );
    }
    let _ = writeln!(
        text,
        "let crate{project}x{file} () =\n    let value = {{ Count = 0; Name = \"c\" }}\n    value.Count <- value.Count + 1\n    value\n"
    );
    text
}

fn project_xml(project: usize, files: &[String]) -> String {
    let items: String = files.iter().map(|file| format!("    <Compile Include=\"{file}\" />\n")).collect();
    let reference = if project == 0 {
        "    <ProjectReference Include=\"../Core/Core.fsproj\" />\n".to_owned()
    } else {
        format!("    <ProjectReference Include=\"../P{}/P{}.fsproj\" />\n", project - 1, project - 1)
    };
    format!(
        "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n    <TargetFramework>net8.0</TargetFramework>\n  </PropertyGroup>\n  <ItemGroup>\n{items}  </ItemGroup>\n  <ItemGroup>\n{reference}  </ItemGroup>\n</Project>\n"
    )
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create workspace directory");
    }
    std::fs::write(path, text).expect("write workspace file");
}

/// Writes the workspace of `projects` projects (plus the Core project) under `root`.
pub fn generate(root: &Path, projects: usize) -> ScaleWorkspace {
    let mut files = Vec::new();
    let (mut bytes, mut lines) = (0u64, 0u64);
    let mut record = |path: PathBuf, text: &str, files: &mut Vec<PathBuf>| {
        write(&path, text);
        bytes += text.len() as u64;
        lines += text.lines().count() as u64;
        files.push(path);
    };
    let core = core_file();
    record(root.join("src/Core/Shared.fs"), &core, &mut files);
    write(
        &root.join("src/Core/Core.fsproj"),
        "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n    <TargetFramework>net8.0</TargetFramework>\n  </PropertyGroup>\n  <ItemGroup>\n    <Compile Include=\"Shared.fs\" />\n  </ItemGroup>\n</Project>\n",
    );
    for project in 0..projects {
        let names: Vec<String> = (0..FILES_PER_PROJECT).map(|file| format!("F{file}.fs")).collect();
        for (file, name) in names.iter().enumerate() {
            let text = project_file(project, file);
            record(root.join(format!("src/P{project}/{name}")), &text, &mut files);
        }
        write(&root.join(format!("src/P{project}/P{project}.fsproj")), &project_xml(project, &names));
    }
    ScaleWorkspace { projects, files, bytes, lines }
}
