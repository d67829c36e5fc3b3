//! Parsed assemblies kept in memory by (path, size, modification time), so repeated queries
//! over the same references parse each file once. A changed file is parsed again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use super::{Assembly, MetadataError, read_assembly_file};

type Key = (PathBuf, u64, Option<SystemTime>);

/// At most this many parsed assemblies are kept; beyond it the cache starts over.
const MAXIMUM_ENTRIES: usize = 256;

fn cache() -> &'static Mutex<HashMap<Key, Arc<Assembly>>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Arc<Assembly>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The parsed assembly at `path`, from the cache when the file is unchanged.
pub fn load_assembly(path: &Path) -> Result<Arc<Assembly>, MetadataError> {
    let file_metadata =
        std::fs::metadata(path).map_err(|error| MetadataError::Io(format!("{}: {error}", path.display())))?;
    let key: Key = (path.to_path_buf(), file_metadata.len(), file_metadata.modified().ok());
    if let Ok(entries) = cache().lock()
        && let Some(found) = entries.get(&key)
    {
        return Ok(found.clone());
    }
    let assembly = Arc::new(read_assembly_file(path)?);
    if let Ok(mut entries) = cache().lock() {
        if entries.len() >= MAXIMUM_ENTRIES {
            entries.clear();
        }
        entries.insert(key, assembly.clone());
    }
    Ok(assembly)
}
