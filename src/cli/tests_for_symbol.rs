//! The text of `fslens tests-for-symbol`.

use crate::commands::tests_for_symbol::*;

/// The answer as the command line prints it.
pub fn render_text(answer: &TestsForSymbolAnswer) -> String {
    let mut lines = Vec::new();
    let symbol = answer.symbol.as_deref().or(answer.query.as_deref()).unwrap_or("the symbol");
    lines.push(format!(
        "{} test(s) reach {symbol} (via {}; {})",
        answer.total_tests,
        answer.via.as_str(),
        if answer.complete { "complete" } else { "not complete" }
    ));
    for project in &answer.test_projects {
        lines.push(format!("{} ({}; {})", project.project, project.rule.describe(), project.searched));
        for test in &project.tests {
            let reach = match &test.reach {
                Reach::Direct(_) => String::new(),
                Reach::Via { via, .. } if test.chain.len() < 3 => format!(" via {via}"),
                Reach::Via { .. } => {
                    let steps: Vec<&str> =
                        test.chain[1..test.chain.len() - 1].iter().map(|step| step.name.as_str()).collect();
                    format!(" via {}", steps.join(" → "))
                }
            };
            lines.push(format!(
                "  {}:{} {} [{}]{reach}",
                test.path,
                test.line + 1,
                test.fully_qualified_name.as_deref().unwrap_or(&test.name),
                serde_plain(test.framework)
            ));
        }
    }
    for helper in answer.helpers.iter().filter(|helper| !helper.followed) {
        lines.push(format!(
            "helper not followed: {} ({}:{}){}",
            helper.name,
            helper.path,
            helper.line + 1,
            helper.reason.as_deref().map(|reason| format!(": {reason}")).unwrap_or_default()
        ));
    }
    lines.extend(answer.completeness.missing.iter().map(|missing| format!("missing: {missing}")));
    lines.extend(answer.notes.iter().map(|note| format!("note: {note}")));
    lines.join("\n")
}

fn serde_plain(framework: Framework) -> &'static str {
    match framework {
        Framework::Xunit => "xunit",
        Framework::Nunit => "nunit",
        Framework::Expecto => "expecto",
        Framework::Fscheck => "fscheck",
        Framework::Mstest => "mstest",
    }
}
