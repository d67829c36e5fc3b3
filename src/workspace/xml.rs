//! Reading MSBuild project and `.slnx` files as XML, with `roxmltree` (a maintained,
//! dependency-free parser).
//!
//! The document becomes a small element tree (local names, attributes, text), which is all the
//! project and solution readers need. A file that is not well-formed XML is an error naming
//! the line and column where parsing stopped: MSBuild refuses to load such a project, so
//! fslens must not read a guess out of it. DTDs are allowed (roxmltree expands the internal
//! subset's entities); entities and character references are decoded.

use std::fmt;

/// One element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct XmlElement {
    /// The local name (`msb:Project` → `Project`).
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

/// Why a text is not well-formed XML, and where (1-based line and column, columns counted in
/// characters of the text without a byte-order mark).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XmlSyntaxError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl fmt::Display for XmlSyntaxError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "malformed XML at line {}, column {}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for XmlSyntaxError {}

/// Parses `text` into a synthetic root element (named `#document`) whose child is the
/// document's root element.
pub fn parse_xml(text: &str) -> Result<XmlElement, XmlSyntaxError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let options = roxmltree::ParsingOptions { allow_dtd: true, ..roxmltree::ParsingOptions::default() };
    let document = roxmltree::Document::parse_with_options(text, options).map_err(|error| {
        let position = error.pos();
        XmlSyntaxError { line: position.row, column: position.col, message: error.to_string() }
    })?;
    Ok(XmlElement {
        name: "#document".to_owned(),
        children: vec![element_of(document.root_element())],
        ..XmlElement::default()
    })
}

fn element_of(node: roxmltree::Node<'_, '_>) -> XmlElement {
    let mut element = XmlElement {
        name: node.tag_name().name().to_owned(),
        attributes: node
            .attributes()
            .map(|attribute| (attribute.name().to_owned(), attribute.value().to_owned()))
            .collect(),
        ..XmlElement::default()
    };
    for child in node.children() {
        if child.is_element() {
            element.children.push(element_of(child));
        } else if child.is_text()
            && let Some(chunk) = child.text().map(str::trim).filter(|chunk| !chunk.is_empty())
        {
            if !element.text.is_empty() {
                element.text.push(' ');
            }
            element.text.push_str(chunk);
        }
    }
    element
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_elements_attributes_and_text() {
        let document = parse_xml(
            "\u{feff}<?xml version=\"1.0\"?><!-- c --><Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup><ItemGroup><Compile Include=\"a &amp; b.fs\" /></ItemGroup></Project>",
        )
        .unwrap();
        let project = &document.children[0];
        assert_eq!(project.attribute("sdk"), Some("Microsoft.NET.Sdk"));
        assert_eq!(project.children[0].child_text("TargetFramework"), Some("net8.0"));
        assert_eq!(project.children[1].children[0].attribute("Include"), Some("a & b.fs"));
        let namespaced = parse_xml(
            r#"<Project xmlns="http://schemas.microsoft.com/developer/msbuild/2003"><ItemGroup><Compile Include="A.fs"/></ItemGroup></Project>"#,
        )
        .unwrap();
        assert_eq!(namespaced.children[0].children_named("ItemGroup").count(), 1);
    }

    #[test]
    fn malformed_text_is_an_error_with_its_position_and_never_a_panic() {
        let error = parse_xml("<Project>\n  <ItemGroup>\n    <Compile Include=\"A.fs\">\n</Project>\n").unwrap_err();
        assert_eq!((error.line, error.column), (4, 1), "{error}");
        assert!(error.to_string().starts_with("malformed XML at line 4, column 1: "), "{error}");
        for input in [
            "",
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
            "<a><b><c></a><d/>",
        ] {
            assert!(parse_xml(input).is_err(), "{input:?}");
        }
    }
}
