//! A small, strict INI parser: sections, keys, values, comments, line
//! continuations and typed lookups, with errors that point at the line.
//!
//! ```
//! let doc = ini::parse("[server]\nport = 8080\n").unwrap();
//! assert_eq!(doc.get_as::<u16>("server", "port").unwrap(), Some(8080));
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// What went wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub kind: ErrorKind,
}

/// The kinds of parse error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// `[section` without its closing bracket.
    UnclosedSection,
    /// `[]`: a section needs a name.
    EmptySectionName,
    /// A line that is neither a section, a comment nor `key = value`.
    MissingEquals(String),
    /// The same key twice in one section.
    DuplicateKey { section: String, key: String },
    /// A continuation (`\` at the end of a line) on the last line.
    DanglingContinuation,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: ", self.line)?;
        match &self.kind {
            ErrorKind::UnclosedSection => write!(f, "section header is not closed with ']'"),
            ErrorKind::EmptySectionName => write!(f, "section name is empty"),
            ErrorKind::MissingEquals(text) => write!(f, "expected `key = value`, found {:?}", text),
            ErrorKind::DuplicateKey { section, key } => {
                write!(f, "key {:?} appears twice in section [{}]", key, section)
            }
            ErrorKind::DanglingContinuation => write!(f, "line continuation at the end of the file"),
        }
    }
}

impl std::error::Error for ParseError {}

/// A typed lookup failed: the value is there but does not parse.
#[derive(Debug)]
pub struct ValueError {
    pub section: String,
    pub key: String,
    pub value: String,
    pub expected: &'static str,
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}] {} = {:?} is not a valid {}",
            self.section, self.key, self.value, self.expected
        )
    }
}

/// A parsed document: sections in order of name, keys in order of name.
/// Keys before the first section header live in the section named "".
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Document {
    sections: BTreeMap<String, BTreeMap<String, String>>,
}

impl Document {
    /// The raw value of `key` in `section`.
    pub fn get(&self, section: &str, key: &str) -> Option<&str> {
        self.sections.get(section)?.get(key).map(String::as_str)
    }

    /// The value of `key` parsed as `T`; `Ok(None)` when it is absent.
    pub fn get_as<T: FromStr>(&self, section: &str, key: &str) -> Result<Option<T>, ValueError> {
        match self.get(section, key) {
            None => Ok(None),
            Some(raw) => raw.parse::<T>().map(Some).map_err(|_| ValueError {
                section: section.to_string(),
                key: key.to_string(),
                value: raw.to_string(),
                expected: std::any::type_name::<T>(),
            }),
        }
    }

    /// A boolean, spelled the ways config files spell them.
    pub fn get_bool(&self, section: &str, key: &str) -> Result<Option<bool>, ValueError> {
        let Some(raw) = self.get(section, key) else {
            return Ok(None);
        };
        match raw.to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Ok(Some(true)),
            "0" | "false" | "no" | "off" => Ok(Some(false)),
            _ => Err(ValueError {
                section: section.to_string(),
                key: key.to_string(),
                value: raw.to_string(),
                expected: "boolean",
            }),
        }
    }

    /// The names of the sections, the unnamed one included when it has keys.
    pub fn sections(&self) -> impl Iterator<Item = &str> {
        self.sections.keys().map(String::as_str)
    }

    /// The keys and values of one section.
    pub fn section(&self, name: &str) -> impl Iterator<Item = (&str, &str)> {
        self.sections
            .get(name)
            .into_iter()
            .flat_map(|m| m.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }
}

/// Strips a trailing comment that starts with `;` or `#` after whitespace,
/// leaving those characters alone inside double quotes.
fn strip_comment(line: &str) -> &str {
    let mut in_quotes = false;
    let mut prev_space = true;
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_quotes = !in_quotes,
            ';' | '#' if !in_quotes && prev_space => return &line[..i],
            _ => {}
        }
        prev_space = c.is_whitespace();
    }
    line
}

/// Removes one pair of surrounding double quotes and resolves `\"`, `\\`,
/// `\n` and `\t` inside them.
fn unquote(value: &str) -> String {
    let v = value.trim();
    if v.len() < 2 || !v.starts_with('"') || !v.ends_with('"') {
        return v.to_string();
    }
    let mut out = String::with_capacity(v.len());
    let mut chars = v[1..v.len() - 1].chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Parses a whole document.
pub fn parse(text: &str) -> Result<Document, ParseError> {
    let mut doc = Document::default();
    let mut section = String::new();
    let mut pending: Option<(usize, String)> = None; // a line continued with '\'

    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        // Join continued lines before anything else looks at them.
        let (start, joined) = match pending.take() {
            Some((start, mut acc)) => {
                acc.push_str(raw.trim_start());
                (start, acc)
            }
            None => (number, raw.to_string()),
        };
        if let Some(head) = joined.strip_suffix('\\') {
            pending = Some((start, head.to_string()));
            continue;
        }

        let line = strip_comment(&joined).trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest
                .strip_suffix(']')
                .ok_or(ParseError { line: start, kind: ErrorKind::UnclosedSection })?
                .trim();
            if name.is_empty() {
                return Err(ParseError { line: start, kind: ErrorKind::EmptySectionName });
            }
            section = name.to_string();
            doc.sections.entry(section.clone()).or_default();
            continue;
        }
        let (key, value) = line.split_once('=').ok_or_else(|| ParseError {
            line: start,
            kind: ErrorKind::MissingEquals(line.to_string()),
        })?;
        let key = key.trim().to_string();
        let keys = doc.sections.entry(section.clone()).or_default();
        if keys.contains_key(&key) {
            return Err(ParseError {
                line: start,
                kind: ErrorKind::DuplicateKey { section: section.clone(), key },
            });
        }
        keys.insert(key, unquote(value));
    }

    if let Some((start, _)) = pending {
        return Err(ParseError { line: start, kind: ErrorKind::DanglingContinuation });
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_and_keys() {
        let doc = parse("top = 1\n[a]\nx = 2 ; note\n[b]\ny = \"q; not a comment\"\n").unwrap();
        assert_eq!(doc.get("", "top"), Some("1"));
        assert_eq!(doc.get("a", "x"), Some("2"));
        assert_eq!(doc.get("b", "y"), Some("q; not a comment"));
        assert_eq!(doc.sections().collect::<Vec<_>>(), vec!["", "a", "b"]);
    }

    #[test]
    fn continuation_lines_join() {
        let doc = parse("[s]\nlong = one \\\n  two\n").unwrap();
        assert_eq!(doc.get("s", "long"), Some("one two"));
    }

    #[test]
    fn errors_name_their_line() {
        let err = parse("[ok]\nx = 1\nx = 2\n").unwrap_err();
        assert_eq!(err.line, 3);
        assert!(matches!(err.kind, ErrorKind::DuplicateKey { .. }));
        assert_eq!(parse("[open\n").unwrap_err().kind, ErrorKind::UnclosedSection);
        assert_eq!(parse("a = b \\").unwrap_err().kind, ErrorKind::DanglingContinuation);
    }

    #[test]
    fn typed_lookups() {
        let doc = parse("[n]\nport = 8080\nbad = eighty\non = yes\n").unwrap();
        assert_eq!(doc.get_as::<u16>("n", "port").unwrap(), Some(8080));
        assert!(doc.get_as::<u16>("n", "bad").is_err());
        assert_eq!(doc.get_bool("n", "on").unwrap(), Some(true));
        assert_eq!(doc.get_as::<u16>("n", "missing").unwrap(), None);
    }
}
