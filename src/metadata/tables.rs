//! The `#~`/`#-` tables stream: row counts, the width of every column (heap indexes, simple
//! table indexes and coded indexes grow from 2 to 4 bytes with the sizes they address), and
//! bounds-checked access to one cell. All 45 tables of ECMA-335 II.22 are laid out, so that
//! the tables this reader does not use can still be stepped over.

use super::MetadataError;
use super::bytes::ByteReader;

/// Table numbers (ECMA-335 II.22) used by the reader.
pub mod table {
    pub const MODULE: usize = 0x00;
    pub const TYPE_REF: usize = 0x01;
    pub const TYPE_DEF: usize = 0x02;
    pub const FIELD_PTR: usize = 0x03;
    pub const FIELD: usize = 0x04;
    pub const METHOD_PTR: usize = 0x05;
    pub const METHOD_DEF: usize = 0x06;
    pub const PARAM_PTR: usize = 0x07;
    pub const PARAM: usize = 0x08;
    pub const MEMBER_REF: usize = 0x0A;
    pub const CUSTOM_ATTRIBUTE: usize = 0x0C;
    pub const EVENT_MAP: usize = 0x12;
    pub const EVENT_PTR: usize = 0x13;
    pub const EVENT: usize = 0x14;
    pub const PROPERTY_MAP: usize = 0x15;
    pub const PROPERTY_PTR: usize = 0x16;
    pub const PROPERTY: usize = 0x17;
    pub const METHOD_SEMANTICS: usize = 0x18;
    pub const MODULE_REF: usize = 0x1A;
    pub const TYPE_SPEC: usize = 0x1B;
    pub const ASSEMBLY: usize = 0x20;
    pub const ASSEMBLY_REF: usize = 0x23;
    pub const FILE: usize = 0x26;
    pub const EXPORTED_TYPE: usize = 0x27;
    pub const MANIFEST_RESOURCE: usize = 0x28;
    pub const NESTED_CLASS: usize = 0x29;
    pub const GENERIC_PARAM: usize = 0x2A;
    pub const METHOD_SPEC: usize = 0x2B;
    pub const GENERIC_PARAM_CONSTRAINT: usize = 0x2C;
    pub const COUNT: usize = 0x2D;
}

/// Coded index kinds (ECMA-335 II.24.2.6): tag bits and the tables the tag selects. `None`
/// marks tags that select no table.
#[derive(Clone, Copy, Debug)]
pub enum Coded {
    TypeDefOrRef,
    HasConstant,
    HasCustomAttribute,
    HasFieldMarshal,
    HasDeclSecurity,
    MemberRefParent,
    HasSemantics,
    MethodDefOrRef,
    MemberForwarded,
    Implementation,
    CustomAttributeType,
    ResolutionScope,
    TypeOrMethodDef,
}

impl Coded {
    pub fn tables(self) -> &'static [Option<usize>] {
        use table::*;
        match self {
            Coded::TypeDefOrRef => &[Some(TYPE_DEF), Some(TYPE_REF), Some(TYPE_SPEC)],
            Coded::HasConstant => &[Some(FIELD), Some(PARAM), Some(PROPERTY)],
            Coded::HasCustomAttribute => &[
                Some(METHOD_DEF),
                Some(FIELD),
                Some(TYPE_REF),
                Some(TYPE_DEF),
                Some(PARAM),
                Some(0x09),
                Some(MEMBER_REF),
                Some(MODULE),
                Some(0x0E),
                Some(PROPERTY),
                Some(EVENT),
                Some(0x11),
                Some(MODULE_REF),
                Some(TYPE_SPEC),
                Some(ASSEMBLY),
                Some(ASSEMBLY_REF),
                Some(FILE),
                Some(EXPORTED_TYPE),
                Some(MANIFEST_RESOURCE),
                Some(GENERIC_PARAM),
                Some(GENERIC_PARAM_CONSTRAINT),
                Some(METHOD_SPEC),
            ],
            Coded::HasFieldMarshal => &[Some(FIELD), Some(PARAM)],
            Coded::HasDeclSecurity => &[Some(TYPE_DEF), Some(METHOD_DEF), Some(ASSEMBLY)],
            Coded::MemberRefParent => {
                &[Some(TYPE_DEF), Some(TYPE_REF), Some(MODULE_REF), Some(METHOD_DEF), Some(TYPE_SPEC)]
            }
            Coded::HasSemantics => &[Some(EVENT), Some(PROPERTY)],
            Coded::MethodDefOrRef => &[Some(METHOD_DEF), Some(MEMBER_REF)],
            Coded::MemberForwarded => &[Some(FIELD), Some(METHOD_DEF)],
            Coded::Implementation => &[Some(FILE), Some(ASSEMBLY_REF), Some(EXPORTED_TYPE)],
            Coded::CustomAttributeType => &[None, None, Some(METHOD_DEF), Some(MEMBER_REF), None],
            Coded::ResolutionScope => &[Some(MODULE), Some(MODULE_REF), Some(ASSEMBLY_REF), Some(TYPE_REF)],
            Coded::TypeOrMethodDef => &[Some(TYPE_DEF), Some(METHOD_DEF)],
        }
    }

    pub fn tag_bits(self) -> u32 {
        let count = self.tables().len() as u32;
        32 - (count - 1).leading_zeros()
    }

    /// Splits a coded value into (table, 1-based row); row 0 means "none".
    pub fn decode(self, value: u32) -> Result<(usize, u32), MetadataError> {
        let bits = self.tag_bits();
        let tag = (value & ((1 << bits) - 1)) as usize;
        match self.tables().get(tag) {
            Some(Some(table)) => Ok((*table, value >> bits)),
            _ => Err(MetadataError::malformed(format!("{self:?} coded index has unused tag {tag}"))),
        }
    }

    pub fn encode(self, table: usize, row: u32) -> Option<u32> {
        let tag = self.tables().iter().position(|candidate| *candidate == Some(table))?;
        Some((row << self.tag_bits()) | tag as u32)
    }
}

/// One column's kind.
#[derive(Clone, Copy, Debug)]
enum Column {
    U16,
    U32,
    Strings,
    Guid,
    Blob,
    Index(usize),
    Coded(Coded),
}

fn schema(table_number: usize) -> &'static [Column] {
    use Column::*;
    use table::*;
    match table_number {
        0x00 => &[U16, Strings, Guid, Guid, Guid],
        0x01 => &[Coded(self::Coded::ResolutionScope), Strings, Strings],
        0x02 => &[U32, Strings, Strings, Coded(self::Coded::TypeDefOrRef), Index(FIELD), Index(METHOD_DEF)],
        0x03 => &[Index(FIELD)],
        0x04 => &[U16, Strings, Blob],
        0x05 => &[Index(METHOD_DEF)],
        0x06 => &[U32, U16, U16, Strings, Blob, Index(PARAM)],
        0x07 => &[Index(PARAM)],
        0x08 => &[U16, U16, Strings],
        0x09 => &[Index(TYPE_DEF), Coded(self::Coded::TypeDefOrRef)],
        0x0A => &[Coded(self::Coded::MemberRefParent), Strings, Blob],
        0x0B => &[U16, Coded(self::Coded::HasConstant), Blob],
        0x0C => &[Coded(self::Coded::HasCustomAttribute), Coded(self::Coded::CustomAttributeType), Blob],
        0x0D => &[Coded(self::Coded::HasFieldMarshal), Blob],
        0x0E => &[U16, Coded(self::Coded::HasDeclSecurity), Blob],
        0x0F => &[U16, U32, Index(TYPE_DEF)],
        0x10 => &[U32, Index(FIELD)],
        0x11 => &[Blob],
        0x12 => &[Index(TYPE_DEF), Index(EVENT)],
        0x13 => &[Index(EVENT)],
        0x14 => &[U16, Strings, Coded(self::Coded::TypeDefOrRef)],
        0x15 => &[Index(TYPE_DEF), Index(PROPERTY)],
        0x16 => &[Index(PROPERTY)],
        0x17 => &[U16, Strings, Blob],
        0x18 => &[U16, Index(METHOD_DEF), Coded(self::Coded::HasSemantics)],
        0x19 => &[Index(TYPE_DEF), Coded(self::Coded::MethodDefOrRef), Coded(self::Coded::MethodDefOrRef)],
        0x1A => &[Strings],
        0x1B => &[Blob],
        0x1C => &[U16, Coded(self::Coded::MemberForwarded), Strings, Index(MODULE_REF)],
        0x1D => &[U32, Index(FIELD)],
        0x1E => &[U32, U32],
        0x1F => &[U32],
        0x20 => &[U32, U16, U16, U16, U16, U32, Blob, Strings, Strings],
        0x21 => &[U32],
        0x22 => &[U32, U32, U32],
        0x23 => &[U16, U16, U16, U16, U32, Blob, Strings, Strings, Blob],
        0x24 => &[U32, Index(ASSEMBLY_REF)],
        0x25 => &[U32, U32, U32, Index(ASSEMBLY_REF)],
        0x26 => &[U32, Strings, Blob],
        0x27 => &[U32, U32, Strings, Strings, Coded(self::Coded::Implementation)],
        0x28 => &[U32, U32, Strings, Coded(self::Coded::Implementation)],
        0x29 => &[Index(TYPE_DEF), Index(TYPE_DEF)],
        0x2A => &[U16, U16, Coded(self::Coded::TypeOrMethodDef), Strings],
        0x2B => &[Coded(self::Coded::MethodDefOrRef), Blob],
        0x2C => &[Index(GENERIC_PARAM), Coded(self::Coded::TypeDefOrRef)],
        _ => &[],
    }
}

struct TableLayout {
    rows: u32,
    offset: usize,
    row_size: usize,
    /// Offset and width of each column within a row.
    columns: Vec<(usize, bool)>,
}

/// The decoded layout of a tables stream.
pub struct Tables<'a> {
    data: &'a [u8],
    layouts: Vec<TableLayout>,
}

impl<'a> Tables<'a> {
    pub fn parse(data: &'a [u8]) -> Result<Tables<'a>, MetadataError> {
        let mut reader = ByteReader::new(data);
        reader.skip(6, "tables header")?;
        let heap_sizes = reader.u8("heap sizes")?;
        reader.skip(1, "tables header reserved byte")?;
        let valid = reader.u64("valid tables mask")?;
        reader.skip(8, "sorted tables mask")?;
        if valid >> table::COUNT != 0 {
            return Err(MetadataError::malformed(format!(
                "tables {valid:#x} include numbers past {:#x} (a portable PDB or an unknown format)",
                table::COUNT - 1
            )));
        }
        let mut rows = [0u32; table::COUNT];
        for (number, count) in rows.iter_mut().enumerate() {
            if valid & (1 << number) != 0 {
                *count = reader.u32("table row count")?;
            }
        }
        // An uncompressed (#-) stream with the "extra data" bit carries four more bytes.
        if heap_sizes & 0x40 != 0 {
            reader.skip(4, "tables extra data")?;
        }
        let wide_strings = heap_sizes & 0x01 != 0;
        let wide_guid = heap_sizes & 0x02 != 0;
        let wide_blob = heap_sizes & 0x04 != 0;
        let mut layouts = Vec::with_capacity(table::COUNT);
        let mut offset = reader.position();
        for (number, row_count) in rows.iter().enumerate() {
            let mut columns = Vec::new();
            let mut row_size = 0usize;
            for column in schema(number) {
                let wide = match column {
                    Column::U16 => false,
                    Column::U32 => true,
                    Column::Strings => wide_strings,
                    Column::Guid => wide_guid,
                    Column::Blob => wide_blob,
                    Column::Index(target) => rows[*target] > 0xFFFF,
                    Column::Coded(coded) => {
                        let limit = 1u32 << (16 - coded.tag_bits());
                        coded.tables().iter().flatten().any(|target| rows[*target] >= limit)
                    }
                };
                columns.push((row_size, wide));
                row_size += if wide { 4 } else { 2 };
            }
            let size = row_size
                .checked_mul(*row_count as usize)
                .ok_or_else(|| MetadataError::malformed("table size overflows"))?;
            layouts.push(TableLayout { rows: *row_count, offset, row_size, columns });
            offset = offset.checked_add(size).ok_or_else(|| MetadataError::malformed("table size overflows"))?;
        }
        if offset > data.len() {
            return Err(MetadataError::malformed(format!(
                "the tables need {offset} bytes but the stream has {}",
                data.len()
            )));
        }
        Ok(Tables { data, layouts })
    }

    pub fn rows(&self, table_number: usize) -> u32 {
        self.layouts.get(table_number).map_or(0, |layout| layout.rows)
    }

    /// The value of column `column` of 1-based row `row` of `table_number`.
    pub fn cell(&self, table_number: usize, row: u32, column: usize) -> Result<u32, MetadataError> {
        let layout = self
            .layouts
            .get(table_number)
            .ok_or_else(|| MetadataError::malformed(format!("no table {table_number:#x}")))?;
        if row == 0 || row > layout.rows {
            return Err(MetadataError::malformed(format!(
                "row {row} of table {table_number:#x} is out of range (1..={})",
                layout.rows
            )));
        }
        let (column_offset, wide) = *layout
            .columns
            .get(column)
            .ok_or_else(|| MetadataError::malformed(format!("table {table_number:#x} has no column {column}")))?;
        let position = layout.offset + (row as usize - 1) * layout.row_size + column_offset;
        ByteReader::at(self.data, position).index(wide, "table cell")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coded_indexes_round_trip() {
        assert_eq!(Coded::HasCustomAttribute.tag_bits(), 5);
        assert_eq!(Coded::TypeDefOrRef.tag_bits(), 2);
        assert_eq!(Coded::CustomAttributeType.tag_bits(), 3);
        assert_eq!(Coded::HasSemantics.tag_bits(), 1);
        let value = Coded::TypeDefOrRef.encode(table::TYPE_REF, 7).unwrap();
        assert_eq!(Coded::TypeDefOrRef.decode(value).unwrap(), (table::TYPE_REF, 7));
        assert!(Coded::CustomAttributeType.decode(0).is_err());
    }

    #[test]
    fn a_truncated_stream_is_an_error() {
        assert!(Tables::parse(&[0; 10]).is_err());
        let mut header = vec![0u8; 24];
        header[8] = 1; // the Module table is present …
        assert!(Tables::parse(&header).is_err()); // … but its row count is missing
    }
}
