// The .NET SDK pin check FSAC hits before any LSP I/O (Ionide.ProjInfo runs
// `dotnet --version` in the cwd, which honours global.json). If global.json
// asks for an SDK that is not "installed" (FSAC_DOUBLE_INSTALLED_SDKS), print a
// message like the dotnet host's and exit non-zero without reading stdin.
import fs from 'node:fs';
import path from 'node:path';

const parse = (v) => {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(v ?? '');
  return m ? { major: +m[1], minor: +m[2], band: Math.floor(+m[3] / 100), patch: +m[3] % 100, text: v } : null;
};
const cmp = (a, b) => a.major - b.major || a.minor - b.minor || a.band - b.band || a.patch - b.patch;

/** The nearest global.json from `dir` upwards, or null. */
export function findGlobalJson(dir) {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const f = path.join(d, 'global.json');
    if (fs.existsSync(f)) return f;
    if (path.dirname(d) === d) return null;
  }
}

/** Does an installed SDK satisfy {version, rollForward}? (dotnet's roll-forward policies.) */
export function satisfies(requested, rollForward, installed) {
  const want = parse(requested);
  if (!want) return true;
  const policy = (rollForward ?? 'latestPatch').toLowerCase();
  return installed.map(parse).filter(Boolean).some((have) => {
    if (cmp(have, want) < 0) return false;
    switch (policy) {
      case 'disable': return cmp(have, want) === 0;
      case 'patch': case 'latestpatch': return have.major === want.major && have.minor === want.minor && have.band === want.band;
      case 'feature': case 'latestfeature': return have.major === want.major && have.minor === want.minor;
      case 'minor': case 'latestminor': return have.major === want.major;
      default: return true; // major, latestMajor
    }
  });
}

/** Returns the failure text if the pin in `cwd` cannot be satisfied, else null. */
export function sdkPinFailure(cwd, installed) {
  const file = findGlobalJson(cwd);
  if (!file) return null;
  let sdk;
  try { sdk = JSON.parse(fs.readFileSync(file, 'utf8')).sdk; } catch { return null; }
  if (!sdk?.version || satisfies(sdk.version, sdk.rollForward, installed)) return null;
  return [
    'A compatible .NET SDK was not found.',
    '',
    `Requested SDK version: ${sdk.version}`,
    `global.json file: ${file}`,
    '',
    'Installed SDKs:',
    ...installed.map((v) => `${v} [/usr/share/dotnet/sdk]`),
    '',
    `Install the [${sdk.version}] .NET SDK or update [${file}] to match an installed SDK.`,
    '',
    'Unhandled exception: System.Exception: `dotnet --version` failed (exit code 145)',
    '   at Ionide.ProjInfo.SdkDiscovery.versionAt(DirectoryInfo cwd, FileInfo dotnetBinaryPath)',
    '   at Ionide.ProjInfo.Init.init(DirectoryInfo workingDirectory, FileInfo dotnetExe)',
  ].join('\n');
}
