//! A small, forgiving XML reader for MSBuild project and `.slnx` files.
//!
//! It builds an element tree (names, attributes, text) and never fails or panics: malformed
//! markup is skipped, unclosed elements are closed at the end, a stray closing tag closes up
//! to its match (or is ignored). That is enough for project files, which are machine-written
//! and simple; a full XML parser would add a dependency for no gain here. Entities `&amp;`,
//! `&lt;`, `&gt;`, `&quot;`, `&apos;` and numeric references are decoded; DTDs are skipped.

/// One element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct XmlElement {
    pub name: String,
    pub attributes: Vec<(String, String)>,
    pub children: Vec<XmlElement>,
    /// Concatenated character data directly inside this element, trimmed.
    pub text: String,
}

impl XmlElement {
    /// The attribute's value, matching the name case-insensitively (MSBuild is).
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.as_str())
    }

    /// Direct children with this (case-insensitive) local name.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a XmlElement> + 'a {
        self.children.iter().filter(move |child| local_name(&child.name).eq_ignore_ascii_case(name))
    }

    /// The text of the first direct child with this name, or of its attribute of the same
    /// name (`<Version>1</Version>` and `Version="1"` are equivalent for items).
    pub fn child_text(&self, name: &str) -> Option<&str> {
        self.children
            .iter()
            .find(|child| local_name(&child.name).eq_ignore_ascii_case(name))
            .map(|child| child.text.as_str())
    }

    /// This element and every descendant, depth-first in document order.
    pub fn descendants(&self) -> Vec<&XmlElement> {
        let mut result = Vec::new();
        let mut stack = vec![self];
        while let Some(element) = stack.pop() {
            result.push(element);
            for child in element.children.iter().rev() {
                stack.push(child);
            }
        }
        result
    }
}

/// `msb:Project` → `Project`.
pub fn local_name(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// Parses `text` into a synthetic root element (named `#document`) whose children are the
/// document's top-level elements.
pub fn parse_xml(text: &str) -> XmlElement {
    let mut stack: Vec<XmlElement> = vec![XmlElement { name: "#document".to_owned(), ..XmlElement::default() }];
    let bytes = text.as_bytes();
    let mut position = 0usize;
    while position < bytes.len() {
        if bytes[position] != b'<' {
            let end = text[position..].find('<').map_or(text.len(), |offset| position + offset);
            let chunk = decode_entities(&text[position..end]);
            if let Some(top) = stack.last_mut() {
                let trimmed = chunk.trim();
                if !trimmed.is_empty() {
                    if !top.text.is_empty() {
                        top.text.push(' ');
                    }
                    top.text.push_str(trimmed);
                }
            }
            position = end;
            continue;
        }
        let rest = &text[position..];
        if rest.starts_with("<!--") {
            position = rest.find("-->").map_or(text.len(), |offset| position + offset + 3);
        } else if rest.starts_with("<![CDATA[") {
            let end = rest.find("]]>").map_or(text.len(), |offset| position + offset);
            let data = text.get(position + 9..end).unwrap_or("");
            if let Some(top) = stack.last_mut() {
                top.text.push_str(data.trim());
            }
            position = (end + 3).min(text.len());
        } else if rest.starts_with("<?") {
            position = rest.find("?>").map_or(text.len(), |offset| position + offset + 2);
        } else if rest.starts_with("<!") {
            position = skip_declaration(text, position);
        } else if rest.starts_with("</") {
            let end = rest.find('>').map_or(text.len(), |offset| position + offset);
            let name = text.get(position + 2..end).unwrap_or("").trim().to_owned();
            position = (end + 1).min(text.len());
            close_element(&mut stack, &name);
        } else {
            let (element, self_closing, next) = read_start_tag(text, position);
            position = next;
            match element {
                Some(element) if self_closing => {
                    if let Some(top) = stack.last_mut() {
                        top.children.push(element);
                    }
                }
                Some(element) => stack.push(element),
                None => {}
            }
        }
    }
    while stack.len() > 1 {
        if let Some(element) = stack.pop()
            && let Some(parent) = stack.last_mut()
        {
            parent.children.push(element);
        }
    }
    stack.pop().unwrap_or_default()
}

fn close_element(stack: &mut Vec<XmlElement>, name: &str) {
    // Close up to the matching open element; a closing tag with no match is ignored.
    let Some(depth) = stack.iter().rposition(|element| element.name == name) else {
        return;
    };
    if depth == 0 {
        return;
    }
    while stack.len() > depth {
        if let Some(element) = stack.pop()
            && let Some(parent) = stack.last_mut()
        {
            parent.children.push(element);
        }
    }
}

/// Skips `<!DOCTYPE …>` including a bracketed internal subset.
fn skip_declaration(text: &str, start: usize) -> usize {
    let mut depth = 0i32;
    for (offset, character) in text[start..].char_indices() {
        match character {
            '[' => depth += 1,
            ']' => depth -= 1,
            '>' if depth <= 0 => return start + offset + 1,
            _ => {}
        }
    }
    text.len()
}

/// Reads `<name attr="v" …>` or `<name …/>` starting at `start`; returns the element, whether
/// it closed itself, and the offset after the tag.
fn read_start_tag(text: &str, start: usize) -> (Option<XmlElement>, bool, usize) {
    let bytes = text.as_bytes();
    let mut position = start + 1;
    let name_start = position;
    while position < bytes.len() && !bytes[position].is_ascii_whitespace() && !matches!(bytes[position], b'>' | b'/') {
        position += 1;
    }
    let name = text.get(name_start..position).unwrap_or("").to_owned();
    let mut element = XmlElement { name, ..XmlElement::default() };
    loop {
        while position < bytes.len() && bytes[position].is_ascii_whitespace() {
            position += 1;
        }
        if position >= bytes.len() {
            return (Some(element).filter(|element| !element.name.is_empty()), true, text.len());
        }
        match bytes[position] {
            b'>' => {
                return (Some(element).filter(|element| !element.name.is_empty()), false, position + 1);
            }
            b'/' => {
                let end = text[position..].find('>').map_or(text.len(), |offset| position + offset + 1);
                return (Some(element).filter(|element| !element.name.is_empty()), true, end);
            }
            _ => {}
        }
        let key_start = position;
        while position < bytes.len()
            && !bytes[position].is_ascii_whitespace()
            && !matches!(bytes[position], b'=' | b'>' | b'/')
        {
            position += 1;
        }
        let key = text.get(key_start..position).unwrap_or("").to_owned();
        while position < bytes.len() && bytes[position].is_ascii_whitespace() {
            position += 1;
        }
        let mut value = String::new();
        if position < bytes.len() && bytes[position] == b'=' {
            position += 1;
            while position < bytes.len() && bytes[position].is_ascii_whitespace() {
                position += 1;
            }
            if position < bytes.len() && matches!(bytes[position], b'"' | b'\'') {
                let quote = bytes[position] as char;
                let value_start = position + 1;
                let value_end = text[value_start..].find(quote).map_or(text.len(), |offset| value_start + offset);
                value = decode_entities(text.get(value_start..value_end).unwrap_or(""));
                position = (value_end + 1).min(text.len());
            } else {
                let value_start = position;
                while position < bytes.len() && !bytes[position].is_ascii_whitespace() && bytes[position] != b'>' {
                    position += 1;
                }
                value = decode_entities(text.get(value_start..position).unwrap_or(""));
            }
        }
        if key.is_empty() {
            // Not an attribute at all (stray character): step over it.
            position += 1;
            continue;
        }
        element.attributes.push((key, value));
    }
}

/// Decodes the five predefined entities and numeric character references; anything else is
/// kept as written.
pub fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let mut output = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(ampersand) = rest.find('&') {
        output.push_str(&rest[..ampersand]);
        rest = &rest[ampersand..];
        let Some(semicolon) = rest.find(';').filter(|offset| *offset <= 10) else {
            output.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..semicolon];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ if entity.starts_with("#x") || entity.starts_with("#X") => {
                u32::from_str_radix(&entity[2..], 16).ok().and_then(char::from_u32)
            }
            _ if entity.starts_with('#') => entity[1..].parse::<u32>().ok().and_then(char::from_u32),
            _ => None,
        };
        match decoded {
            Some(character) => {
                output.push(character);
                rest = &rest[semicolon + 1..];
            }
            None => {
                output.push('&');
                rest = &rest[1..];
            }
        }
    }
    output.push_str(rest);
    output
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_elements_attributes_and_text() {
        let document = parse_xml(
            r#"<?xml version="1.0"?><!-- c --><Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup><ItemGroup><Compile Include="a &amp; b.fs" /></ItemGroup></Project>"#,
        );
        let project = &document.children[0];
        assert_eq!(project.attribute("sdk"), Some("Microsoft.NET.Sdk"));
        assert_eq!(project.children[0].child_text("TargetFramework"), Some("net8.0"));
        assert_eq!(project.children[1].children[0].attribute("Include"), Some("a & b.fs"));
    }

    #[test]
    fn never_panics_on_garbage() {
        for input in [
            "<",
            "<a",
            "<a b=",
            "<a b=\"",
            "</x>",
            "<a><b></a>",
            "&#xFFFFFFFF;",
            "<!DOCTYPE [",
            "<![CDATA[",
            "<a/ >",
            "<<>>",
        ] {
            let _ = parse_xml(input);
        }
        let unbalanced = parse_xml("<a><b><c></a><d/>");
        assert_eq!(unbalanced.children.len(), 2);
    }
}
