//! The text of `fslens project-inspect`.

use crate::commands::project_inspect::*;

pub fn render_text(answer: &ProjectInspectAnswer) -> String {
    let mut text = String::new();
    if let Some(reason) = &answer.fsac_model.reason {
        text.push_str(&format!("{reason}\n"));
    }
    for project in &answer.projects {
        text.push_str(&format!("{} ({})\n", project.project, project.name));
        match &project.fsac {
            Some(fsac) => {
                text.push_str(&format!(
                    "  FSAC: {} {} ({}), output {} ({}), test project: {}, restored: {}\n",
                    fsac.target_framework.as_deref().unwrap_or("?"),
                    fsac.configuration.as_deref().unwrap_or("?"),
                    fsac.target_framework_choice,
                    fsac.output.as_deref().unwrap_or("?"),
                    fsac.output_type.as_deref().unwrap_or("?"),
                    fsac.is_test_project.map_or("?".to_owned(), |flag| flag.to_string()),
                    fsac.restore_success.map_or("?".to_owned(), |flag| flag.to_string()),
                ));
                for (slot, file) in fsac.files.iter().enumerate() {
                    text.push_str(&format!("    {}. {file}\n", slot + 1));
                }
                for reference in &fsac.project_references {
                    text.push_str(&format!("    → {reference}\n"));
                }
                for package in &fsac.package_references {
                    text.push_str(&format!(
                        "    package {} {}\n",
                        package.name,
                        package.version.as_deref().unwrap_or("")
                    ));
                }
                text.push_str(&format!("    defines (derived): {}\n", fsac.defines.join(" ")));
            }
            None => {
                let files = &project.project_files;
                text.push_str(&format!(
                    "  project file: {}, restored: {}\n",
                    files.target_frameworks.join(";"),
                    files.restored
                ));
                for (slot, item) in files.compile_items.iter().enumerate() {
                    text.push_str(&format!("    {}. {}\n", slot + 1, item.file));
                }
                for reference in &files.project_references {
                    text.push_str(&format!("    → {reference}\n"));
                }
            }
        }
        if let Some(error) = &project.fsac_error {
            text.push_str(&format!(
                "  FSAC error {}: {}\n",
                error.code.map_or("?".to_owned(), |code| code.to_string()),
                error.message
            ));
        }
        for difference in &project.differences {
            text.push_str(&format!("  differs: {} — {}\n", difference.subject, difference.detail));
        }
    }
    text
}
