//! Which projects of the workspace are test projects, from fslens's own reading of the
//! project files: a project is one when it references `Microsoft.NET.Test.Sdk`, xunit, NUnit,
//! Expecto or FsCheck.Xunit/NUnit, or sets `IsTestProject` true (and not when it sets it false).

use serde::{Deserialize, Serialize};

use crate::workspace::Project;

/// The packages that make a project a test project, with the rule's name.
const TEST_PACKAGES: [&str; 9] = [
    "Microsoft.NET.Test.Sdk",
    "xunit",
    "xunit.v3",
    "xunit.core",
    "NUnit",
    "Expecto",
    "FsCheck.Xunit",
    "FsCheck.NUnit",
    "YoloDev.Expecto.TestSdk",
];

/// Why a project is a test project.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "rule")]
pub enum TestProjectRule {
    /// `<IsTestProject>true</IsTestProject>`.
    IsTestProject,
    /// A `PackageReference` to a test package.
    PackageReference { package: String },
}

impl TestProjectRule {
    /// The rule in a few words.
    pub fn describe(&self) -> String {
        match self {
            TestProjectRule::IsTestProject => "IsTestProject is true".to_owned(),
            TestProjectRule::PackageReference { package } => format!("references {package}"),
        }
    }
}

/// The rule that makes `project` a test project, or `None`.
pub fn test_project_rule(project: &Project) -> Option<TestProjectRule> {
    match project.is_test_project {
        Some(false) => return None,
        Some(true) => return Some(TestProjectRule::IsTestProject),
        None => {}
    }
    TEST_PACKAGES.iter().find_map(|package| {
        project
            .package_references
            .iter()
            .find(|reference| reference.name.eq_ignore_ascii_case(package))
            .map(|reference| TestProjectRule::PackageReference { package: reference.name.clone() })
    })
}

/// Whether the project references `package` (case-insensitive).
pub fn references(project: &Project, package: &str) -> bool {
    project.package_references.iter().any(|reference| reference.name.eq_ignore_ascii_case(package))
}

/// Whether VSTest can run the project's tests one by one (it references the test SDK).
pub fn runs_under_vstest(project: &Project) -> bool {
    references(project, "Microsoft.NET.Test.Sdk")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::project::parse_project;
    use std::path::Path;

    fn rule_of(xml: &str) -> Option<TestProjectRule> {
        test_project_rule(&parse_project(Path::new("/w/T/T.fsproj"), xml))
    }

    #[test]
    fn test_packages_and_the_property_make_a_test_project() {
        let xunit = r#"<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><PackageReference Include="xunit" Version="2.9.3" /><PackageReference Include="Microsoft.NET.Test.Sdk" Version="18.0.1" /></ItemGroup></Project>"#;
        assert_eq!(
            rule_of(xunit),
            Some(TestProjectRule::PackageReference { package: "Microsoft.NET.Test.Sdk".to_owned() })
        );
        let expecto =
            r#"<Project><ItemGroup><PackageReference Include="Expecto" Version="11.1.1" /></ItemGroup></Project>"#;
        assert_eq!(rule_of(expecto), Some(TestProjectRule::PackageReference { package: "Expecto".to_owned() }));
        let property = r#"<Project><PropertyGroup><IsTestProject>true</IsTestProject></PropertyGroup></Project>"#;
        assert_eq!(rule_of(property), Some(TestProjectRule::IsTestProject));
        let opted_out = r#"<Project><PropertyGroup><IsTestProject>false</IsTestProject></PropertyGroup><ItemGroup><PackageReference Include="xunit" /></ItemGroup></Project>"#;
        assert_eq!(rule_of(opted_out), None);
        let library = r#"<Project><ItemGroup><PackageReference Include="FSharp.Data" /></ItemGroup></Project>"#;
        assert_eq!(rule_of(library), None);
    }
}
