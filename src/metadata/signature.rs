//! Signature blobs (ECMA-335 II.23.2) decoded to readable, F#-flavoured type text: method,
//! field and property signatures, with primitive types under their F# names (`int`,
//! `string`, `unit`…), generic instances as `Name<A, B>`, generic parameters by their
//! declared names, and arrays, byrefs and pointers spelled out. Nesting is bounded so a
//! cyclic TypeSpec cannot recurse without end.

use super::MetadataError;
use super::bytes::ByteReader;

/// Deepest nesting of types inside a signature that is decoded.
const MAXIMUM_DEPTH: usize = 32;

/// Resolves the type tokens a signature refers to.
pub trait TypeNameSource {
    /// The readable name of a TypeDef (`table` 0x02), TypeRef (0x01) or TypeSpec (0x1B) row.
    fn type_name(&self, table: usize, row: u32, depth: usize) -> Result<String, MetadataError>;
}

/// The generic parameter names in scope: the declaring type's and the method's.
#[derive(Clone, Copy, Default)]
pub struct GenericScope<'a> {
    pub type_parameters: &'a [String],
    pub method_parameters: &'a [String],
}

/// A decoded method (or property) signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodSignature {
    pub has_this: bool,
    pub generic_count: u32,
    pub return_type: String,
    pub parameters: Vec<String>,
}

/// `MethodDefSig` / `MethodRefSig`.
pub fn method_signature(
    blob: &[u8],
    names: &dyn TypeNameSource,
    scope: GenericScope<'_>,
) -> Result<MethodSignature, MetadataError> {
    let mut reader = ByteReader::new(blob);
    decode_method(&mut reader, names, scope, 0)
}

fn decode_method(
    reader: &mut ByteReader<'_>,
    names: &dyn TypeNameSource,
    scope: GenericScope<'_>,
    depth: usize,
) -> Result<MethodSignature, MetadataError> {
    let calling_convention = reader.u8("method signature calling convention")?;
    let generic_count =
        if calling_convention & 0x10 != 0 { reader.compressed_u32("generic parameter count")? } else { 0 };
    let parameter_count = reader.compressed_u32("parameter count")?;
    let return_type = decode_type(reader, names, scope, depth)?;
    let mut parameters = Vec::new();
    for _ in 0..parameter_count {
        if reader.is_at_end() {
            return Err(MetadataError::malformed("method signature ends before its parameters"));
        }
        parameters.push(decode_type(reader, names, scope, depth)?);
    }
    Ok(MethodSignature { has_this: calling_convention & 0x20 != 0, generic_count, return_type, parameters })
}

/// `FieldSig`: the field's type.
pub fn field_type(blob: &[u8], names: &dyn TypeNameSource, scope: GenericScope<'_>) -> Result<String, MetadataError> {
    let mut reader = ByteReader::new(blob);
    let lead = reader.u8("field signature")?;
    if lead & 0x0F != 0x06 {
        return Err(MetadataError::malformed(format!("field signature starts with {lead:#x}, not 0x06")));
    }
    decode_type(&mut reader, names, scope, 0)
}

/// `PropertySig`: whether it is an instance property, its type and its index parameters.
pub fn property_signature(
    blob: &[u8],
    names: &dyn TypeNameSource,
    scope: GenericScope<'_>,
) -> Result<MethodSignature, MetadataError> {
    let mut reader = ByteReader::new(blob);
    let lead = reader.u8("property signature")?;
    if lead & 0x0F != 0x08 {
        return Err(MetadataError::malformed(format!("property signature starts with {lead:#x}, not 0x08")));
    }
    let parameter_count = reader.compressed_u32("property parameter count")?;
    let return_type = decode_type(&mut reader, names, scope, 0)?;
    let mut parameters = Vec::new();
    for _ in 0..parameter_count {
        parameters.push(decode_type(&mut reader, names, scope, 0)?);
    }
    Ok(MethodSignature { has_this: lead & 0x20 != 0, generic_count: 0, return_type, parameters })
}

/// A `TypeSpec` blob: one type.
pub fn type_spec(
    blob: &[u8],
    names: &dyn TypeNameSource,
    scope: GenericScope<'_>,
    depth: usize,
) -> Result<String, MetadataError> {
    decode_type(&mut ByteReader::new(blob), names, scope, depth)
}

fn encoded_type_name(
    reader: &mut ByteReader<'_>,
    names: &dyn TypeNameSource,
    depth: usize,
) -> Result<String, MetadataError> {
    let value = reader.compressed_u32("TypeDefOrRef token")?;
    let table = match value & 0x03 {
        0 => 0x02,
        1 => 0x01,
        2 => 0x1B,
        _ => return Err(MetadataError::malformed("TypeDefOrRef token with tag 3")),
    };
    names.type_name(table, value >> 2, depth + 1)
}

fn generic_name(parameters: &[String], number: u32, prefix: &str) -> String {
    parameters.get(number as usize).cloned().unwrap_or_else(|| format!("{prefix}{number}"))
}

/// One `Type` (II.23.2.12), custom modifiers skipped.
pub fn decode_type(
    reader: &mut ByteReader<'_>,
    names: &dyn TypeNameSource,
    scope: GenericScope<'_>,
    depth: usize,
) -> Result<String, MetadataError> {
    if depth > MAXIMUM_DEPTH {
        return Err(MetadataError::malformed("signature nests too deeply"));
    }
    let element = reader.u8("element type")?;
    let primitive = match element {
        0x01 => Some("unit"),
        0x02 => Some("bool"),
        0x03 => Some("char"),
        0x04 => Some("sbyte"),
        0x05 => Some("byte"),
        0x06 => Some("int16"),
        0x07 => Some("uint16"),
        0x08 => Some("int"),
        0x09 => Some("uint32"),
        0x0A => Some("int64"),
        0x0B => Some("uint64"),
        0x0C => Some("float32"),
        0x0D => Some("float"),
        0x0E => Some("string"),
        0x16 => Some("TypedReference"),
        0x18 => Some("nativeint"),
        0x19 => Some("unativeint"),
        0x1C => Some("obj"),
        _ => None,
    };
    if let Some(primitive) = primitive {
        return Ok(primitive.to_owned());
    }
    let next = depth + 1;
    Ok(match element {
        0x0F => format!("nativeptr<{}>", decode_type(reader, names, scope, next)?),
        0x10 => format!("byref<{}>", decode_type(reader, names, scope, next)?),
        0x11 | 0x12 => encoded_type_name(reader, names, depth)?,
        0x13 => generic_name(scope.type_parameters, reader.compressed_u32("type generic parameter")?, "!"),
        0x1E => generic_name(scope.method_parameters, reader.compressed_u32("method generic parameter")?, "!!"),
        0x14 => {
            let element_type = decode_type(reader, names, scope, next)?;
            let rank = reader.compressed_u32("array rank")?;
            let sizes = reader.compressed_u32("array size count")?;
            for _ in 0..sizes {
                reader.compressed_u32("array size")?;
            }
            let bounds = reader.compressed_u32("array lower bound count")?;
            for _ in 0..bounds {
                reader.compressed_u32("array lower bound")?;
            }
            format!("{element_type}[{}]", ",".repeat(rank.saturating_sub(1).min(31) as usize))
        }
        0x15 => {
            reader.u8("generic instance kind")?;
            let generic = encoded_type_name(reader, names, depth)?;
            let count = reader.compressed_u32("generic argument count")?;
            let mut arguments = Vec::new();
            for _ in 0..count {
                arguments.push(decode_type(reader, names, scope, next)?);
            }
            format!("{generic}<{}>", arguments.join(", "))
        }
        0x1B => {
            let method = decode_method(reader, names, scope, next)?;
            format!("delegate* ({}) -> {}", method.parameters.join(", "), method.return_type)
        }
        0x1D => format!("{}[]", decode_type(reader, names, scope, next)?),
        // Custom modifiers (modreq/modopt), then the modified type.
        0x1F | 0x20 => {
            reader.compressed_u32("custom modifier")?;
            decode_type(reader, names, scope, next)?
        }
        0x45 => decode_type(reader, names, scope, next)?,
        0x41 => "...".to_owned(),
        other => return Err(MetadataError::malformed(format!("unknown element type {other:#x} in a signature"))),
    })
}

/// A type name without its generic arity suffix (`List`1` → `List`).
pub fn without_arity(name: &str) -> &str {
    match name.rfind('`') {
        Some(position) if name[position + 1..].bytes().all(|byte| byte.is_ascii_digit()) => &name[..position],
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Names;
    impl TypeNameSource for Names {
        fn type_name(&self, table: usize, row: u32, _depth: usize) -> Result<String, MetadataError> {
            Ok(format!("T{table}_{row}"))
        }
    }

    #[test]
    fn signatures_render_and_bad_blobs_fail() {
        let parameters = ["T".to_owned()];
        let scope = GenericScope { type_parameters: &parameters, method_parameters: &[] };
        // instance, 2 parameters, returns bool; (int, !0[])
        let signature = method_signature(&[0x20, 2, 0x02, 0x08, 0x1D, 0x13, 0], &Names, scope).unwrap();
        assert_eq!(signature.return_type, "bool");
        assert_eq!(signature.parameters, ["int", "T[]"]);
        assert!(signature.has_this);
        // generic instance of TypeRef row 3 with one string argument
        assert_eq!(field_type(&[0x06, 0x15, 0x12, (3 << 2) | 1, 1, 0x0E], &Names, scope).unwrap(), "T1_3<string>");
        assert!(method_signature(&[0x00, 5, 0x01], &Names, scope).is_err());
        assert!(field_type(&[0x06, 0x99], &Names, scope).is_err());
        let deep = [vec![0x06], vec![0x1D; 100], vec![0x08]].concat();
        assert!(field_type(&deep, &Names, scope).is_err());
        assert_eq!(without_arity("List`1"), "List");
        assert_eq!(without_arity("A`b"), "A`b");
    }
}
