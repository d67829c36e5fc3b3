//! Bounds-checked little-endian reads over a borrowed byte slice. Every read names what it
//! was reading, so a truncated or malformed assembly becomes an error that says where, never
//! a panic.

use super::MetadataError;

/// A cursor over bytes; reads past the end are errors.
#[derive(Clone, Copy)]
pub struct ByteReader<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl<'a> ByteReader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        ByteReader { bytes, position: 0 }
    }

    pub fn at(bytes: &'a [u8], position: usize) -> Self {
        ByteReader { bytes, position }
    }

    pub fn position(&self) -> usize {
        self.position
    }

    pub fn is_at_end(&self) -> bool {
        self.position >= self.bytes.len()
    }

    pub fn take(&mut self, count: usize, what: &str) -> Result<&'a [u8], MetadataError> {
        let end = self.position.checked_add(count).filter(|end| *end <= self.bytes.len()).ok_or_else(|| {
            MetadataError::malformed(format!(
                "{what}: {count} bytes at offset {} run past the end ({} bytes)",
                self.position,
                self.bytes.len()
            ))
        })?;
        let slice = &self.bytes[self.position..end];
        self.position = end;
        Ok(slice)
    }

    pub fn skip(&mut self, count: usize, what: &str) -> Result<(), MetadataError> {
        self.take(count, what).map(|_| ())
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, MetadataError> {
        Ok(self.take(1, what)?[0])
    }

    pub fn u16(&mut self, what: &str) -> Result<u16, MetadataError> {
        let bytes = self.take(2, what)?;
        Ok(u16::from_le_bytes([bytes[0], bytes[1]]))
    }

    pub fn u32(&mut self, what: &str) -> Result<u32, MetadataError> {
        let bytes = self.take(4, what)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    pub fn u64(&mut self, what: &str) -> Result<u64, MetadataError> {
        let low = self.u32(what)? as u64;
        let high = self.u32(what)? as u64;
        Ok(low | (high << 32))
    }

    /// A 2- or 4-byte index, as the table layout says.
    pub fn index(&mut self, wide: bool, what: &str) -> Result<u32, MetadataError> {
        if wide { self.u32(what) } else { self.u16(what).map(u32::from) }
    }

    /// ECMA-335 II.23.2 compressed unsigned integer (1, 2 or 4 bytes).
    pub fn compressed_u32(&mut self, what: &str) -> Result<u32, MetadataError> {
        let first = self.u8(what)?;
        if first & 0x80 == 0 {
            Ok(first as u32)
        } else if first & 0xC0 == 0x80 {
            let second = self.u8(what)?;
            Ok((((first & 0x3F) as u32) << 8) | second as u32)
        } else if first & 0xE0 == 0xC0 {
            let rest = self.take(3, what)?;
            Ok((((first & 0x1F) as u32) << 24) | ((rest[0] as u32) << 16) | ((rest[1] as u32) << 8) | rest[2] as u32)
        } else {
            Err(MetadataError::malformed(format!("{what}: invalid compressed integer lead byte {first:#x}")))
        }
    }

    /// A NUL-terminated string, the terminator consumed.
    pub fn c_string(&mut self, what: &str) -> Result<&'a [u8], MetadataError> {
        let rest = &self.bytes[self.position.min(self.bytes.len())..];
        let length = rest
            .iter()
            .position(|byte| *byte == 0)
            .ok_or_else(|| MetadataError::malformed(format!("{what}: string without terminator")))?;
        let text = self.take(length, what)?;
        self.skip(1, what)?;
        Ok(text)
    }
}

/// A sub-slice `[offset, offset + length)` of `bytes`, or an error naming `what`.
pub fn slice<'a>(bytes: &'a [u8], offset: usize, length: usize, what: &str) -> Result<&'a [u8], MetadataError> {
    offset.checked_add(length).filter(|end| *end <= bytes.len()).map(|end| &bytes[offset..end]).ok_or_else(|| {
        MetadataError::malformed(format!(
            "{what}: {length} bytes at offset {offset} lie outside the {} available",
            bytes.len()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_integers_and_bounds() {
        let mut reader = ByteReader::new(&[0x03, 0x80, 0x80, 0xC0, 0x00, 0x40, 0x00, 0xFF]);
        assert_eq!(reader.compressed_u32("a").unwrap(), 3);
        assert_eq!(reader.compressed_u32("b").unwrap(), 0x80);
        assert_eq!(reader.compressed_u32("c").unwrap(), 0x4000);
        assert!(reader.compressed_u32("d").is_err());
        assert!(ByteReader::new(&[1]).u32("short").is_err());
        assert!(slice(&[1, 2], 1, usize::MAX, "huge").is_err());
    }
}
