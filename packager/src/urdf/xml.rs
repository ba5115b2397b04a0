//! A URDF file as a tree of elements, each with the line it is on, so that every message can
//! name the place in the file (quick-xml reads the file; this only keeps what URDF needs:
//! element names, attributes and nesting).

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

/// One XML element: its name, attributes in file order, child elements and the line of its tag
/// (1-based; the line where the tag ends, for a tag spread over several lines).
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    pub name: String,
    pub attributes: Vec<(String, String)>,
    pub children: Vec<Element>,
    pub line: usize,
}

impl Element {
    /// The value of attribute `name`, if given.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The first child element called `name`.
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    /// Every child element called `name`.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> {
        self.children.iter().filter(move |c| c.name == name)
    }
}

/// The root element of `text`, or what is wrong with the XML and on which line.
pub fn parse(text: &str) -> Result<Element, String> {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(k, _)| k + 1))
        .collect();
    // The line of the byte at `offset`.
    let line_of = |offset: u64| {
        let offset = usize::try_from(offset).unwrap_or(usize::MAX);
        line_starts.partition_point(|&start| start <= offset)
    };
    let mut reader = Reader::from_str(text);
    // Open elements, innermost last; the root is kept when it closes.
    let mut open: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    loop {
        let event = reader.read_event().map_err(|e| {
            format!(
                "line {}: not well-formed XML: {e}",
                line_of(reader.error_position())
            )
        })?;
        // The reader stands just after the tag's `>`.
        let line = line_of(reader.buffer_position().saturating_sub(1));
        match event {
            Event::Start(tag) => open.push(element(&tag, line)?),
            Event::Empty(tag) => {
                let done = element(&tag, line)?;
                close(&mut open, &mut root, done, line)?;
            }
            Event::End(_) => {
                let done = open
                    .pop()
                    .ok_or_else(|| format!("line {line}: a closing tag without its opening tag"))?;
                close(&mut open, &mut root, done, line)?;
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some(unclosed) = open.first() {
        return Err(format!(
            "line {}: <{}> is never closed",
            unclosed.line, unclosed.name
        ));
    }
    root.ok_or_else(|| "the file holds no XML element".to_string())
}

/// An element from its opening tag, without children yet.
fn element(tag: &BytesStart, line: usize) -> Result<Element, String> {
    let mut attributes = Vec::new();
    for attribute in tag.attributes() {
        let attribute = attribute.map_err(|e| format!("line {line}: {e}"))?;
        let value = attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| format!("line {line}: {e}"))?;
        attributes.push((
            String::from_utf8_lossy(attribute.key.as_ref().as_bytes()).into_owned(),
            value.into_owned(),
        ));
    }
    Ok(Element {
        name: String::from_utf8_lossy(tag.name().as_ref().as_bytes()).into_owned(),
        attributes,
        children: Vec::new(),
        line,
    })
}

/// Hands a finished element to its parent, or keeps it as the root.
fn close(
    open: &mut [Element],
    root: &mut Option<Element>,
    done: Element,
    line: usize,
) -> Result<(), String> {
    match open.last_mut() {
        Some(parent) => parent.children.push(done),
        None if root.is_none() => *root = Some(done),
        None => {
            return Err(format!(
                "line {line}: a second root element <{}>",
                done.name
            ))
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_keep_their_lines_attributes_and_nesting() {
        let root = parse(
            "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n  <link name=\"a\">\n    <inertial/>\n  </link>\n</robot>\n",
        )
        .expect("parses");
        assert_eq!(root.name, "robot");
        assert_eq!(root.attribute("name"), Some("r"));
        assert_eq!(root.line, 2);
        let link = root.child("link").expect("link");
        assert_eq!((link.line, link.attribute("name")), (3, Some("a")));
        assert_eq!(link.child("inertial").map(|e| e.line), Some(4));
    }

    #[test]
    fn broken_xml_names_its_line() {
        let error = parse("<robot>\n<link>\n</robot>\n").expect_err("mismatched");
        assert!(error.starts_with("line 3"), "{error}");
        let error = parse("<robot>\n<link/>\n").expect_err("unclosed");
        assert!(error.contains("never closed"), "{error}");
    }
}
