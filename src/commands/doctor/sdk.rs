//! Which .NET SDK a workspace gets, read from files only: the SDKs installed beside the
//! `dotnet` that runs (its root's `sdk/<version>/` folders) and the `global.json` that pins one,
//! with its `rollForward` policy applied as the .NET host applies it
//! (https://learn.microsoft.com/dotnet/core/tools/global-json, "Matching rules").

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

/// An SDK version: `major.minor.patch[-prerelease]`, where the patch's hundreds are the feature
/// band (`8.0.303`: band 3, patch 3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SdkVersion {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub prerelease: Option<String>,
    pub text: String,
}

impl SdkVersion {
    /// Reads `10.0.401` or `10.0.100-preview.7.25380.108`; anything else is `None`.
    pub fn parse(text: &str) -> Option<SdkVersion> {
        let text = text.trim();
        let (numbers, prerelease) = match text.split_once('-') {
            Some((numbers, prerelease)) => (numbers, Some(prerelease.to_owned())),
            None => (text, None),
        };
        let mut parts = numbers.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = parts.next()?.parse().ok()?;
        if parts.next().is_some() {
            return None;
        }
        Some(SdkVersion { major, minor, patch, prerelease, text: text.to_owned() })
    }

    fn feature_band(&self) -> u64 {
        self.patch / 100
    }

    fn band_key(&self) -> (u64, u64, u64) {
        (self.major, self.minor, self.feature_band())
    }
}

impl Ord for SdkVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch)).then_with(|| {
            match (&self.prerelease, &other.prerelease) {
                (None, None) => Ordering::Equal,
                // A release comes after its previews.
                (None, Some(_)) => Ordering::Greater,
                (Some(_), None) => Ordering::Less,
                (Some(mine), Some(theirs)) => compare_prerelease(mine, theirs),
            }
        })
    }
}

impl PartialOrd for SdkVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Semantic-version order of pre-release labels: numeric parts by value, others as text.
fn compare_prerelease(mine: &str, theirs: &str) -> Ordering {
    let mut left = mine.split('.');
    let mut right = theirs.split('.');
    loop {
        match (left.next(), right.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(a), Some(b)) => {
                let order = match (a.parse::<u64>(), b.parse::<u64>()) {
                    (Ok(a), Ok(b)) => a.cmp(&b),
                    _ => a.cmp(b),
                };
                if order != Ordering::Equal {
                    return order;
                }
            }
        }
    }
}

/// `global.json`'s `sdk.rollForward` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RollForward {
    Patch,
    Feature,
    Minor,
    Major,
    LatestPatch,
    LatestFeature,
    LatestMinor,
    LatestMajor,
    Disable,
}

impl RollForward {
    pub fn parse(text: &str) -> Option<RollForward> {
        Some(match text.to_ascii_lowercase().as_str() {
            "patch" => RollForward::Patch,
            "feature" => RollForward::Feature,
            "minor" => RollForward::Minor,
            "major" => RollForward::Major,
            "latestpatch" => RollForward::LatestPatch,
            "latestfeature" => RollForward::LatestFeature,
            "latestminor" => RollForward::LatestMinor,
            "latestmajor" => RollForward::LatestMajor,
            "disable" => RollForward::Disable,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RollForward::Patch => "patch",
            RollForward::Feature => "feature",
            RollForward::Minor => "minor",
            RollForward::Major => "major",
            RollForward::LatestPatch => "latestPatch",
            RollForward::LatestFeature => "latestFeature",
            RollForward::LatestMinor => "latestMinor",
            RollForward::LatestMajor => "latestMajor",
            RollForward::Disable => "disable",
        }
    }

    /// How far from the requested version the policy may go: 0 the feature band, 1 the minor
    /// version, 2 the major version, 3 anything later.
    fn reach(self) -> u8 {
        match self {
            RollForward::Disable | RollForward::Patch | RollForward::LatestPatch => 0,
            RollForward::Feature | RollForward::LatestFeature => 1,
            RollForward::Minor | RollForward::LatestMinor => 2,
            RollForward::Major | RollForward::LatestMajor => 3,
        }
    }

    fn takes_latest(self) -> bool {
        matches!(
            self,
            RollForward::LatestPatch | RollForward::LatestFeature | RollForward::LatestMinor | RollForward::LatestMajor
        )
    }
}

/// The `sdk` section of a `global.json`, as the host reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalJson {
    pub path: PathBuf,
    /// `sdk.version` as written (`None`: no pin, the latest SDK is used).
    pub version: Option<String>,
    /// `sdk.rollForward` as written.
    pub roll_forward: Option<String>,
    /// `sdk.allowPrerelease` (the command line's default is `true`).
    pub allow_prerelease: bool,
    /// `sdk.paths` (.NET 10): where SDKs are looked for, `$host$` being the running dotnet's root.
    pub paths: Option<Vec<String>>,
}

/// Why a `global.json` cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalJsonError {
    pub path: PathBuf,
    pub message: String,
}

/// The `global.json` the SDK reads for a process started in `directory`: the first one in it or
/// a parent directory.
pub fn find_global_json(directory: &Path) -> Option<PathBuf> {
    directory.ancestors().map(|ancestor| ancestor.join("global.json")).find(|candidate| candidate.is_file())
}

/// Reads a `global.json` (comments and trailing commas allowed, as the host allows them).
pub fn read_global_json(path: &Path) -> Result<GlobalJson, GlobalJsonError> {
    let error = |message: String| GlobalJsonError { path: path.to_owned(), message };
    let text = std::fs::read_to_string(path).map_err(|io| error(format!("cannot read it: {io}")))?;
    let value: serde_json::Value = serde_json::from_str(&strip_json_comments(&text))
        .map_err(|parse| error(format!("it is not valid JSON: {parse}")))?;
    let sdk = value.get("sdk");
    let string = |name: &str| sdk.and_then(|sdk| sdk.get(name)).and_then(|value| value.as_str()).map(str::to_owned);
    let allow_prerelease =
        sdk.and_then(|sdk| sdk.get("allowPrerelease")).and_then(serde_json::Value::as_bool).unwrap_or(true);
    let paths = sdk
        .and_then(|sdk| sdk.get("paths"))
        .and_then(serde_json::Value::as_array)
        .map(|paths| paths.iter().filter_map(serde_json::Value::as_str).map(str::to_owned).collect::<Vec<_>>());
    Ok(GlobalJson {
        path: path.to_owned(),
        version: string("version"),
        roll_forward: string("rollForward"),
        allow_prerelease,
        paths,
    })
}

/// JSON without `//` and `/* */` comments and without trailing commas before `}` or `]`.
fn strip_json_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut characters = text.chars().peekable();
    let mut in_string = false;
    while let Some(character) = characters.next() {
        if in_string {
            out.push(character);
            if character == '\\' {
                if let Some(escaped) = characters.next() {
                    out.push(escaped);
                }
            } else if character == '"' {
                in_string = false;
            }
            continue;
        }
        match (character, characters.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(character);
            }
            ('/', Some('/')) => {
                for skipped in characters.by_ref() {
                    if skipped == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                characters.next();
                let mut previous = ' ';
                for skipped in characters.by_ref() {
                    if previous == '*' && skipped == '/' {
                        break;
                    }
                    previous = skipped;
                }
                out.push(' ');
            }
            _ => out.push(character),
        }
    }
    // Trailing commas: a comma followed only by blanks and a closing bracket.
    let mut cleaned = String::with_capacity(out.len());
    let bytes: Vec<char> = out.chars().collect();
    let mut in_string = false;
    for (index, &character) in bytes.iter().enumerate() {
        if in_string {
            if character == '"' && bytes[..index].iter().rev().take_while(|c| **c == '\\').count() % 2 == 0 {
                in_string = false;
            }
        } else if character == '"' {
            in_string = true;
        } else if character == ',' {
            let next = bytes[index + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                continue;
            }
        }
        cleaned.push(character);
    }
    cleaned
}

/// Where the SDKs are: the `dotnet` on `PATH` (its links followed) is the muxer that runs, so
/// its directory is the root whose `sdk/` folders count; without one, `DOTNET_ROOT`.
pub fn dotnet_root(
    path_variable: Option<&std::ffi::OsStr>,
    dotnet_root_variable: Option<&std::ffi::OsStr>,
) -> Option<PathBuf> {
    let on_path = path_variable.and_then(|path| {
        std::env::split_paths(path).map(|directory| directory.join("dotnet")).find(|candidate| candidate.is_file())
    });
    if let Some(muxer) = on_path {
        let resolved = std::fs::canonicalize(&muxer).unwrap_or(muxer);
        return resolved.parent().map(Path::to_path_buf);
    }
    dotnet_root_variable.filter(|value| !value.is_empty()).map(PathBuf::from).filter(|root| root.is_dir())
}

/// The SDK versions installed under `root` (`root/sdk/<version>/`), sorted ascending.
pub fn installed_sdks(root: &Path) -> Vec<SdkVersion> {
    let mut versions: Vec<SdkVersion> = std::fs::read_dir(root.join("sdk"))
        .map(|entries| {
            entries
                .flatten()
                .filter(|entry| entry.path().is_dir())
                .filter_map(|entry| SdkVersion::parse(&entry.file_name().to_string_lossy()))
                .collect()
        })
        .unwrap_or_default();
    versions.sort();
    versions.dedup();
    versions
}

/// The SDK roots a `global.json`'s `paths` name (relative ones from its directory; `$host$` is
/// the running dotnet's root); without `paths`, the dotnet root alone.
pub fn sdk_roots(global_json: Option<&GlobalJson>, dotnet_root: Option<&Path>) -> Vec<PathBuf> {
    let Some(paths) = global_json.and_then(|global| global.paths.as_ref().map(|paths| (global, paths))) else {
        return dotnet_root.map(Path::to_path_buf).into_iter().collect();
    };
    let (global, paths) = paths;
    let base = global.path.parent().unwrap_or(Path::new("."));
    paths
        .iter()
        .filter_map(|written| {
            if written == "$host$" {
                dotnet_root.map(Path::to_path_buf)
            } else {
                Some(crate::workspace::paths::normalize_lexically(&base.join(written)))
            }
        })
        .collect()
}

/// What the host does with a pin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// This installed SDK is used.
    Uses(SdkVersion),
    /// No installed SDK satisfies the pin.
    NoneMatches,
}

/// The SDK the host picks for `requested` under `policy` among `installed` (the "Matching
/// rules" of global.json's documentation): first the requested feature band (the requested
/// patch or a later one: the requested version itself for `patch` and `disable`, the latest
/// otherwise); for a policy that reaches further, the nearest later feature band, minor or major
/// version (its latest patch), or the very latest for the `latest*` policies. Pre-release SDKs
/// count only when `allow_prerelease`.
pub fn resolve(
    requested: &SdkVersion,
    policy: RollForward,
    allow_prerelease: bool,
    installed: &[SdkVersion],
) -> Resolution {
    let candidates: Vec<&SdkVersion> = installed
        .iter()
        .filter(|version| allow_prerelease || version.prerelease.is_none() || **version == *requested)
        .filter(|version| *version >= requested)
        .collect();
    if policy == RollForward::Disable {
        return match candidates.iter().find(|version| **version == requested) {
            Some(found) => Resolution::Uses((*found).clone()),
            None => Resolution::NoneMatches,
        };
    }
    let within_reach = |version: &&&SdkVersion| match policy.reach() {
        0 => version.band_key() == requested.band_key(),
        1 => (version.major, version.minor) == (requested.major, requested.minor),
        2 => version.major == requested.major,
        _ => true,
    };
    let reachable: Vec<&SdkVersion> = candidates.iter().filter(within_reach).copied().collect();
    if policy.takes_latest() {
        return reachable
            .iter()
            .max()
            .map(|found| Resolution::Uses((*found).clone()))
            .unwrap_or(Resolution::NoneMatches);
    }
    if policy == RollForward::Patch
        && let Some(exact) = reachable.iter().find(|version| **version == requested)
    {
        return Resolution::Uses((*exact).clone());
    }
    // The nearest feature band (the requested one first), then its latest patch.
    let Some(band) = reachable.iter().map(|version| version.band_key()).min() else {
        return Resolution::NoneMatches;
    };
    reachable
        .iter()
        .filter(|version| version.band_key() == band)
        .max()
        .map(|found| Resolution::Uses((*found).clone()))
        .unwrap_or(Resolution::NoneMatches)
}

/// The SDK checks: an SDK is installed beside the `dotnet` that runs, and the `global.json`
/// that applies in the workspace root (where FSAC starts) is satisfied.
pub fn checks(root: &Path, environment: &super::DoctorEnvironment) -> Vec<super::DoctorCheck> {
    let dotnet = dotnet_root(environment.path.as_deref(), environment.dotnet_root.as_deref());
    let global = find_global_json(root).map(|path| read_global_json(&path));
    let readable = global.as_ref().and_then(|global| global.as_ref().ok());
    let roots = sdk_roots(readable, dotnet.as_deref());
    let mut installed: Vec<SdkVersion> = roots.iter().flat_map(|root| installed_sdks(root)).collect();
    installed.sort();
    installed.dedup();
    let listed = installed.iter().map(|version| version.text.as_str()).collect::<Vec<_>>().join(", ");
    vec![installed_check(dotnet.as_deref(), &installed, &listed), global_json_check(root, global, &installed, listed)]
}

/// Whether an SDK is installed beside the `dotnet` that runs.
fn installed_check(dotnet: Option<&Path>, installed: &[SdkVersion], listed: &str) -> super::DoctorCheck {
    use super::{CheckId, CheckStatus, DoctorCheck};
    match (dotnet, installed.last()) {
        (None, _) => DoctorCheck::new(
            CheckId::DotnetSdk,
            CheckStatus::Problem,
            "no .NET SDK: `dotnet` is not on PATH and DOTNET_ROOT names no directory",
        )
        .fix(INSTALL_SDK),
        (Some(dotnet), None) => DoctorCheck::new(
            CheckId::DotnetSdk,
            CheckStatus::Problem,
            format!("no .NET SDK is installed in {} (only a runtime?)", dotnet.display()),
        )
        .fix(INSTALL_SDK)
        .path(dotnet.display().to_string()),
        (Some(dotnet), Some(latest)) => DoctorCheck::new(
            CheckId::DotnetSdk,
            CheckStatus::Ok,
            format!("installed in {}: {listed} (latest {})", dotnet.display(), latest.text),
        )
        .path(dotnet.display().to_string()),
    }
}

/// Whether the `global.json` that applies in the workspace root is satisfied by an installed SDK.
fn global_json_check(
    root: &Path,
    global: Option<Result<GlobalJson, GlobalJsonError>>,
    installed: &[SdkVersion],
    listed: String,
) -> super::DoctorCheck {
    use super::{CheckId, CheckStatus, DoctorCheck, display_path};
    let Some(global) = global else {
        return DoctorCheck::new(
            CheckId::GlobalJson,
            CheckStatus::Ok,
            "no global.json in the workspace or above it: the latest installed SDK is used",
        );
    };
    let global = match global {
        Ok(global) => global,
        Err(error) => {
            let shown = display_path(root, &error.path);
            return DoctorCheck::new(
                CheckId::GlobalJson,
                CheckStatus::Warning,
                format!("{shown}: {}; the SDK ignores it and uses the latest installed SDK", error.message),
            )
            .fix(format!("correct or delete {shown}"))
            .path(shown);
        }
    };
    let shown = display_path(root, &global.path);
    let Some(written) = global.version.as_deref() else {
        return DoctorCheck::new(CheckId::GlobalJson, CheckStatus::Ok, format!("{shown} pins no SDK version"))
            .path(shown);
    };
    let Some(requested) = SdkVersion::parse(written) else {
        return DoctorCheck::new(
            CheckId::GlobalJson,
            CheckStatus::Problem,
            format!("{shown} pins \"{written}\", which is no SDK version (major.minor.patch)"),
        )
        .fix(format!(
            "write an SDK version such as \"{}\" in {shown}",
            installed.last().map_or("10.0.100", |latest| latest.text.as_str())
        ))
        .path(shown);
    };
    let policy = match global.roll_forward.as_deref() {
        None => RollForward::LatestPatch,
        Some(written_policy) => match RollForward::parse(written_policy) {
            Some(policy) => policy,
            None => {
                return DoctorCheck::new(
                        CheckId::GlobalJson,
                        CheckStatus::Problem,
                        format!("{shown}: rollForward \"{written_policy}\" is not a policy the SDK knows"),
                    )
                    .fix(format!(
                        "use one of patch, feature, minor, major, latestPatch, latestFeature, latestMinor, latestMajor, disable in {shown}"
                    ))
                    .path(shown);
            }
        },
    };
    let pin = format!("{shown} pins SDK {written} (rollForward {})", policy.as_str());
    match resolve(&requested, policy, global.allow_prerelease, installed) {
        Resolution::Uses(version) => {
            DoctorCheck::new(CheckId::GlobalJson, CheckStatus::Ok, format!("{pin}: SDK {} is used", version.text))
                .path(shown)
        }
        Resolution::NoneMatches => {
            let have = if listed.is_empty() { "none".to_owned() } else { listed };
            let relax = match installed.last() {
                Some(latest) if *latest > requested => {
                    format!(", or set \"rollForward\": \"latestMajor\" in {shown} to use {}", latest.text)
                }
                _ => String::new(),
            };
            DoctorCheck::new(
                CheckId::GlobalJson,
                CheckStatus::Problem,
                format!("{pin}, which no installed SDK satisfies (installed: {have}); FSAC cannot start"),
            )
            .fix(format!("curl -sSL https://dot.net/v1/dotnet-install.sh | bash -s -- --version {written}{relax}"))
            .path(shown)
        }
    }
}

/// How to install an SDK, as a user types it.
const INSTALL_SDK: &str = "install the .NET SDK: curl -sSL https://dot.net/v1/dotnet-install.sh | bash -s -- --channel LTS (or your package manager's dotnet-sdk)";

#[cfg(test)]
mod tests {
    use super::*;

    fn versions(texts: &[&str]) -> Vec<SdkVersion> {
        let mut versions: Vec<SdkVersion> = texts.iter().map(|text| SdkVersion::parse(text).unwrap()).collect();
        versions.sort();
        versions
    }

    fn picks(requested: &str, policy: &str, installed: &[&str]) -> Option<String> {
        match resolve(
            &SdkVersion::parse(requested).unwrap(),
            RollForward::parse(policy).unwrap(),
            true,
            &versions(installed),
        ) {
            Resolution::Uses(version) => Some(version.text),
            Resolution::NoneMatches => None,
        }
    }

    #[test]
    fn policies_follow_the_documented_matching_rules() {
        let installed = ["8.0.100", "8.0.102", "8.0.204", "8.0.303", "8.1.100", "9.0.100", "10.0.401"];
        // The documentation's own examples use 8.0.xxx bands; these cover each policy.
        assert_eq!(picks("8.0.100", "disable", &installed).as_deref(), Some("8.0.100"));
        assert_eq!(picks("8.0.101", "disable", &installed), None);
        assert_eq!(picks("8.0.100", "patch", &installed).as_deref(), Some("8.0.100"));
        assert_eq!(picks("8.0.101", "patch", &installed).as_deref(), Some("8.0.102"));
        assert_eq!(picks("8.0.100", "latestPatch", &installed).as_deref(), Some("8.0.102"));
        assert_eq!(picks("8.0.103", "latestPatch", &installed), None);
        assert_eq!(picks("8.0.103", "feature", &installed).as_deref(), Some("8.0.204"));
        assert_eq!(picks("8.0.103", "latestFeature", &installed).as_deref(), Some("8.0.303"));
        assert_eq!(picks("8.0.400", "feature", &installed), None);
        assert_eq!(picks("8.0.400", "minor", &installed).as_deref(), Some("8.1.100"));
        assert_eq!(picks("8.0.400", "latestMinor", &installed).as_deref(), Some("8.1.100"));
        assert_eq!(picks("8.2.100", "minor", &installed), None);
        assert_eq!(picks("8.2.100", "major", &installed).as_deref(), Some("9.0.100"));
        assert_eq!(picks("8.2.100", "latestMajor", &installed).as_deref(), Some("10.0.401"));
        assert_eq!(picks("99.0.100", "latestMajor", &installed), None);
    }

    #[test]
    fn prereleases_count_only_when_allowed_and_sort_before_their_release() {
        let installed = versions(&["10.0.100-preview.7.25380.108", "10.0.100-rc.1.25451.107"]);
        let requested = SdkVersion::parse("10.0.100-preview.1").unwrap();
        assert!(matches!(
            resolve(&requested, RollForward::LatestPatch, true, &installed),
            Resolution::Uses(SdkVersion { ref text, .. }) if text == "10.0.100-rc.1.25451.107"
        ));
        let release = SdkVersion::parse("10.0.100").unwrap();
        assert_eq!(resolve(&release, RollForward::LatestPatch, true, &installed), Resolution::NoneMatches);
        let requested = SdkVersion::parse("9.0.100").unwrap();
        assert_eq!(resolve(&requested, RollForward::LatestMajor, false, &installed), Resolution::NoneMatches);
    }

    #[test]
    fn global_json_with_comments_and_trailing_commas_reads() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("global.json");
        std::fs::write(
            &path,
            "{ // pinned\n \"sdk\": { \"version\": \"8.0.100\", /* why */ \"rollForward\": \"latestFeature\", },\n}\n",
        )
        .unwrap();
        let global = read_global_json(&path).unwrap();
        assert_eq!(global.version.as_deref(), Some("8.0.100"));
        assert_eq!(global.roll_forward.as_deref(), Some("latestFeature"));
        assert!(global.allow_prerelease);
        std::fs::write(&path, "{ \"sdk\": ").unwrap();
        assert!(read_global_json(&path).unwrap_err().message.contains("not valid JSON"));
    }
}
