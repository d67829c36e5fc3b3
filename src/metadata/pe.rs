//! The PE/COFF container of a .NET assembly: DOS stub → PE header → section table → CLI
//! header (data directory 14) → the metadata root ("BSJB") and its stream headers. Only what
//! is needed to reach the metadata streams is read; everything is bounds-checked.

use super::MetadataError;
use super::bytes::{ByteReader, slice};

/// The metadata streams of an assembly, as byte slices of the file.
pub struct Streams<'a> {
    pub runtime_version: String,
    pub tables: &'a [u8],
    /// `#-` (uncompressed, possibly with pointer tables) rather than `#~`.
    pub uncompressed_tables: bool,
    pub strings: &'a [u8],
    pub blob: &'a [u8],
    pub guid: &'a [u8],
}

struct Section {
    virtual_address: u32,
    virtual_size: u32,
    raw_size: u32,
    raw_pointer: u32,
}

/// Finds the metadata streams of a PE file.
pub fn read_streams(file: &[u8]) -> Result<Streams<'_>, MetadataError> {
    let mut dos = ByteReader::new(file);
    if dos.take(2, "DOS signature")? != b"MZ" {
        return Err(MetadataError::NotAssembly("no MZ signature: not a PE file".into()));
    }
    let pe_offset = ByteReader::at(file, 0x3C).u32("PE header offset")? as usize;
    let mut header = ByteReader::at(file, pe_offset);
    if header.take(4, "PE signature")? != b"PE\0\0" {
        return Err(MetadataError::NotAssembly("no PE signature".into()));
    }
    header.skip(2, "COFF machine")?;
    let section_count = header.u16("COFF section count")? as usize;
    header.skip(12, "COFF header")?;
    let optional_size = header.u16("optional header size")? as usize;
    header.skip(2, "COFF characteristics")?;
    let optional_start = header.position();
    let magic = header.u16("optional header magic")?;
    let directories_offset = match magic {
        0x10B => 96,
        0x20B => 112,
        other => return Err(MetadataError::malformed(format!("unknown optional header magic {other:#x}"))),
    };
    let mut directory_count = ByteReader::at(file, optional_start + directories_offset - 4);
    if directory_count.u32("data directory count")? <= 14 {
        return Err(MetadataError::NotAssembly("no CLI header directory: a native image, not .NET".into()));
    }
    let mut cli_directory = ByteReader::at(file, optional_start + directories_offset + 14 * 8);
    let cli_rva = cli_directory.u32("CLI header RVA")?;
    if cli_rva == 0 {
        return Err(MetadataError::NotAssembly("the CLI header is empty: a native image, not .NET".into()));
    }
    let mut sections = Vec::with_capacity(section_count);
    let mut table = ByteReader::at(file, optional_start + optional_size);
    for _ in 0..section_count {
        table.skip(8, "section name")?;
        let virtual_size = table.u32("section virtual size")?;
        let virtual_address = table.u32("section address")?;
        let raw_size = table.u32("section raw size")?;
        let raw_pointer = table.u32("section raw pointer")?;
        table.skip(16, "section header rest")?;
        sections.push(Section { virtual_address, virtual_size, raw_size, raw_pointer });
    }
    let file_offset = |rva: u32, what: &str| -> Result<usize, MetadataError> {
        sections
            .iter()
            .find(|section| {
                let extent = section.virtual_size.max(section.raw_size);
                rva >= section.virtual_address && (rva - section.virtual_address) < extent
            })
            .map(|section| (rva - section.virtual_address) as usize + section.raw_pointer as usize)
            .ok_or_else(|| MetadataError::malformed(format!("{what}: RVA {rva:#x} is in no section")))
    };
    let mut cli = ByteReader::at(file, file_offset(cli_rva, "CLI header")?);
    cli.skip(8, "CLI header size and version")?;
    let metadata_rva = cli.u32("metadata RVA")?;
    let metadata_size = cli.u32("metadata size")? as usize;
    let metadata = slice(file, file_offset(metadata_rva, "metadata root")?, metadata_size, "metadata root")?;
    read_metadata_root(metadata)
}

fn read_metadata_root(metadata: &[u8]) -> Result<Streams<'_>, MetadataError> {
    let mut root = ByteReader::new(metadata);
    if root.u32("metadata signature")? != 0x424A_5342 {
        return Err(MetadataError::malformed("no BSJB metadata signature"));
    }
    root.skip(8, "metadata version")?;
    let version_length = root.u32("runtime version length")? as usize;
    let version_bytes = root.take(version_length, "runtime version")?;
    let runtime_version =
        String::from_utf8_lossy(version_bytes.split(|byte| *byte == 0).next().unwrap_or_default()).into_owned();
    root.skip(2, "metadata flags")?;
    let stream_count = root.u16("stream count")?;
    let mut streams =
        Streams { runtime_version, tables: &[], uncompressed_tables: false, strings: &[], blob: &[], guid: &[] };
    let mut found_tables = false;
    for _ in 0..stream_count {
        let offset = root.u32("stream offset")? as usize;
        let size = root.u32("stream size")? as usize;
        let name_start = root.position();
        let name = root.c_string("stream name")?;
        // Names are padded to a multiple of four bytes, terminator included.
        let consumed = root.position() - name_start;
        root.skip((4 - consumed % 4) % 4, "stream name padding")?;
        let data = slice(metadata, offset, size, "metadata stream")?;
        match name {
            b"#~" => (streams.tables, found_tables) = (data, true),
            b"#-" => (streams.tables, streams.uncompressed_tables, found_tables) = (data, true, true),
            b"#Strings" => streams.strings = data,
            b"#Blob" => streams.blob = data,
            b"#GUID" => streams.guid = data,
            _ => {}
        }
    }
    if !found_tables {
        return Err(MetadataError::malformed("no #~ or #- tables stream"));
    }
    Ok(streams)
}
