//! A focused, bounds-checked reader of .NET assembly metadata (ECMA-335), so fslens can list
//! the types and members of referenced assemblies without a .NET runtime. Pure: no LSP,
//! tokio or proxy types. Malformed input is a [`MetadataError`], never a panic.
//!
//! Reading goes PE/COFF → CLI header → metadata root → streams ([`pe`]) → tables
//! ([`tables`]) → an [`Assembly`] model ([`model`]) whose signatures are decoded by
//! [`signature`]. Package restore output that says which assemblies a project references is
//! read by [`restore`]; [`cache`] keeps parsed assemblies by path, size and modification time.
//!
//! No crate on crates.io fitted when this was written (2026-11): the candidates were either a
//! reverse-engineering framework far larger than this need, or a young single-author
//! read/write library without a PE layer; a reader of the dozen tables used here is smaller
//! than either.

pub mod bytes;
pub mod cache;
pub mod model;
pub mod pe;
pub mod restore;
pub mod signature;
pub mod tables;

pub use model::{Accessibility, Assembly, MemberInfo, MemberKind, TypeInfo, read_assembly, read_assembly_file};

/// Why an assembly could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetadataError {
    /// The file is a PE image without .NET metadata, or not a PE image at all.
    #[error("not a .NET assembly: {0}")]
    NotAssembly(String),
    /// The metadata is truncated or inconsistent; the message says where.
    #[error("malformed metadata: {0}")]
    Malformed(String),
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Io(String),
}

impl MetadataError {
    pub fn malformed(message: impl Into<String>) -> Self {
        MetadataError::Malformed(message.into())
    }
}
