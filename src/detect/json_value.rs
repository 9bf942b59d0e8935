//! A finished call's arguments text into its arguments object, exactly as
//! `serde_json::from_str::<JsonObject>` reads it, but faster on what call
//! arguments mostly are: long strings of file content, dense with escapes.
//!
//! `serde_json` decodes a string into a scratch buffer one escape at a time
//! through its generic reader, then copies the buffer into the value. Here
//! plain runs are found by word search and clusters of one-byte escapes
//! decoded by table (as the streaming decoder does), into a scratch buffer
//! allocated once per parse, then copied out at the string's size.
//!
//! Only input this parser settles completely is answered here: anything else
//! (a syntax error, a lone surrogate, a control character in a string, more
//! than [`MAX_DEPTH`] levels, trailing bytes) goes to `serde_json` itself, so
//! the result and every error message are `serde_json`'s. The differential
//! tests below and the `detect_json_arguments` fuzz target hold the two to the same
//! answers.

use serde_json::{Map, Number, Value};

use super::json_tokenizer::{SIMPLE_ESCAPES, hex_value, is_scalar_byte, surrogate_pair};
use super::scan::find_json_escape;
use crate::core::JsonObject;

/// Nesting deeper than this goes to `serde_json` (whose own limit is 128),
/// which also bounds this parser's recursion.
const MAX_DEPTH: usize = 100;

/// Parses a call's arguments text into its object: the same result, and the
/// same error, as `serde_json::from_str::<JsonObject>(text)`, faster on long
/// strings dense with escapes (file content). The detector finishes every
/// JSON call with it; a consumer that gathers a provider's structured argument
/// fragments itself can use it too.
///
/// ```
/// let args = toolrouter::parse_arguments(r#"{"path":"a\nb"}"#).unwrap();
/// assert_eq!(args["path"], "a\nb");
/// assert!(toolrouter::parse_arguments("[1]").is_err());
/// ```
pub fn parse_arguments(text: &str) -> Result<JsonObject, serde_json::Error> {
    match Parser::new(text).whole_object() {
        Some(object) => Ok(object),
        None => serde_json::from_str::<JsonObject>(text),
    }
}

/// Parses any JSON value, as `serde_json::from_str::<Value>` does.
#[cfg(test)]
pub(crate) fn parse_value(text: &str) -> Result<Value, serde_json::Error> {
    let mut parser = Parser::new(text);
    let value = parser.value(0).filter(|_| parser.at_end());
    match value {
        Some(value) => Ok(value),
        None => serde_json::from_str::<Value>(text),
    }
}

/// Recursive descent over the bytes; `None` means "not settled here".
struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    scratch: String,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            text,
            bytes: text.as_bytes(),
            at: 0,
            scratch: String::new(),
        }
    }

    /// A top-level object and nothing but whitespace after it.
    fn whole_object(&mut self) -> Option<JsonObject> {
        self.skip_ws();
        if self.bytes.get(self.at) != Some(&b'{') {
            return None;
        }
        self.at += 1;
        let object = self.object(1)?;
        self.at_end().then_some(object)
    }

    /// Only whitespace is left.
    fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.at == self.bytes.len()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after whitespace, consumed.
    fn next_token(&mut self) -> Option<u8> {
        self.skip_ws();
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        match self.next_token()? {
            b'"' => self.string().map(Value::String),
            b'{' => self.object(depth + 1).map(Value::Object),
            b'[' => self.array(depth + 1).map(Value::Array),
            b't' => self.literal(b"rue", Value::Bool(true)),
            b'f' => self.literal(b"alse", Value::Bool(false)),
            b'n' => self.literal(b"ull", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, rest: &[u8], value: Value) -> Option<Value> {
        let end = self.at + rest.len();
        (self.bytes.get(self.at..end)? == rest).then(|| {
            self.at = end;
            value
        })
    }

    /// After `{`.
    fn object(&mut self, depth: usize) -> Option<JsonObject> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut map = Map::new();
        match self.next_token()? {
            b'}' => return Some(map),
            b'"' => {}
            _ => return None,
        }
        loop {
            let key = self.string()?;
            if self.next_token()? != b':' {
                return None;
            }
            let value = self.value(depth)?;
            map.insert(key, value);
            match self.next_token()? {
                b',' => {
                    if self.next_token()? != b'"' {
                        return None;
                    }
                }
                b'}' => return Some(map),
                _ => return None,
            }
        }
    }

    /// After `[`.
    fn array(&mut self, depth: usize) -> Option<Vec<Value>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut items = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.at) == Some(&b']') {
            self.at += 1;
            return Some(items);
        }
        loop {
            items.push(self.value(depth)?);
            match self.next_token()? {
                b',' => {}
                b']' => return Some(items),
                _ => return None,
            }
        }
    }

    /// A number, read by `serde_json` itself from the run of scalar bytes
    /// that starts it: the same grammar, integer or float, rounding and range
    /// errors. In valid JSON a number is followed by whitespace, `,`, `]` or
    /// `}`, none of them scalar bytes, so the run is the number exactly; a
    /// longer run is not JSON, and `serde_json` says so.
    fn number(&mut self) -> Option<Value> {
        let start = self.at - 1;
        let len = self.bytes[start..]
            .iter()
            .take_while(|&&b| is_scalar_byte(b))
            .count();
        let number = self.text.get(start..start + len)?.parse::<Number>().ok()?;
        self.at = start + len;
        Some(Value::Number(number))
    }

    /// After the opening quote: the decoded string. With escapes it is
    /// decoded into the scratch buffer, allocated once per parse, and
    /// copied out at its size (measuring the string first to allocate it
    /// once cost more than the copy).
    fn string(&mut self) -> Option<String> {
        let start = self.at;
        let first = find_json_escape(self.bytes, start)?;
        if self.bytes[first] == b'"' {
            self.at = first + 1;
            return Some(self.text.get(start..first)?.to_owned());
        }
        self.scratch.clear();
        // The rest of the text bounds what any string in it decodes to: one
        // allocation for the parse.
        self.scratch.reserve(self.bytes.len() - start);
        self.scratch.push_str(self.text.get(start..first)?);
        self.at = decode(self.text, first, &mut self.scratch)?;
        Some(self.scratch.as_str().to_owned())
    }
}

/// Decodes string content from the escape or control character at `i` of
/// `text` to the closing quote; the offset after it.
fn decode(text: &str, mut i: usize, out: &mut String) -> Option<usize> {
    let bytes = text.as_bytes();
    loop {
        match bytes[i] {
            b'"' => return Some(i + 1),
            b'\\' => i = escapes(bytes, i, out)?,
            _ => return None,
        }
        let next = find_json_escape(bytes, i)?;
        out.push_str(text.get(i..next)?);
        i = next;
    }
}

/// The cluster of escapes from the backslash at `i`; where it ends.
fn escapes(bytes: &[u8], mut i: usize, out: &mut String) -> Option<usize> {
    while bytes.get(i) == Some(&b'\\') {
        let c = *bytes.get(i + 1)?;
        let decoded = SIMPLE_ESCAPES[usize::from(c)];
        if decoded != 0 {
            out.push(char::from(decoded));
            i += 2;
            continue;
        }
        if c != b'u' {
            return None;
        }
        let unit = hex_value(bytes.get(i + 2..i + 6)?)?;
        i += 6;
        let c = match unit {
            0xD800..=0xDBFF => {
                // Only a pair is settled here; serde_json decides the rest.
                if bytes.get(i..i + 2)? != b"\\u" {
                    return None;
                }
                let low = hex_value(bytes.get(i + 2..i + 6)?)?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return None;
                }
                i += 6;
                surrogate_pair(unit, low)
            }
            0xDC00..=0xDFFF => return None,
            _ => unit,
        };
        out.push(char::from_u32(c)?);
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Both parsers give the same value, or both fail with the same message.
    fn same_as_serde(text: &str) {
        let ours = parse_value(text).map_err(|e| e.to_string());
        let theirs = serde_json::from_str::<Value>(text).map_err(|e| e.to_string());
        assert_eq!(ours, theirs, "{text:?}");
        let ours = parse_arguments(text).map_err(|e| e.to_string());
        let theirs = serde_json::from_str::<JsonObject>(text).map_err(|e| e.to_string());
        assert_eq!(ours, theirs, "{text:?}");
    }

    /// What this parser settles itself, by hand.
    #[test]
    fn reads_objects_strings_and_escapes() {
        let text = r#" {"path":"a\"b\\c\nd\u00e9\ud83d\ude00/\/","n":[1,-2.5,0,1e3,true,false,null,{}],"o":{"k":[]}} "#;
        let mut parser = Parser::new(text);
        let object = parser.whole_object().expect("settled here");
        let path = object.get("path").and_then(Value::as_str);
        assert_eq!(path, Some("a\"b\\c\nd\u{e9}\u{1F600}//"));
        let n = object.get("n").and_then(Value::as_array).expect("array");
        assert_eq!(n.len(), 8);
        assert_eq!(n[0].as_u64(), Some(1));
        assert_eq!(n[1].as_f64(), Some(-2.5));
        assert_eq!(n[3].as_f64(), Some(1000.0));
        assert_eq!(n[6], Value::Null);
        let keys: Vec<&str> = object.keys().map(String::as_str).collect();
        assert_eq!(keys, ["path", "n", "o"]);
    }

    /// Input outside what this parser settles is `serde_json`'s to judge:
    /// each is declined here, and the answer is serde's, error text included.
    #[test]
    fn leaves_the_rest_to_serde() {
        let cases = [
            r#"{"a":"\ud800"}"#,
            r#"{"a":"\udc00x"}"#,
            r#"{"a":"\ud800\u0041"}"#,
            "{\"a\":\"tab\there\"}",
            r#"{"a":1,}"#,
            r#"{"a":01}"#,
            r#"{"a":1e999}"#,
            r#"{"a":-}"#,
            r#"{"a":"\x"}"#,
            r#"{"a":1} x"#,
            r#"{"a" 1}"#,
            r#"[1]"#,
            r#"{"a":tru}"#,
            r#"{"a":"unterminated"#,
        ];
        for text in cases {
            assert!(Parser::new(text).whole_object().is_none(), "{text:?}");
            same_as_serde(text);
        }
        let deep = format!("{{\"a\":{}1{}}}", "[".repeat(150), "]".repeat(150));
        assert!(Parser::new(&deep).whole_object().is_none());
        same_as_serde(&deep);
    }

    /// A key given twice keeps its first place and its last value, as serde's
    /// map does.
    #[test]
    fn a_repeated_key_keeps_its_place_and_takes_the_last_value() {
        let text = r#"{"a":1,"b":2,"a":3}"#;
        same_as_serde(text);
        let object = Parser::new(text).whole_object().expect("settled");
        let pairs: Vec<(&str, u64)> = object
            .iter()
            .filter_map(|(k, v)| Some((k.as_str(), v.as_u64()?)))
            .collect();
        assert_eq!(pairs, [("a", 3), ("b", 2)]);
    }

    #[test]
    fn numbers_are_serdes() {
        for n in [
            "0",
            "-0",
            "-0.0",
            "1.5e-3",
            "1E+2",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "1e308",
            "2.2250738585072014e-308",
            "0.1",
            "123456789012345678901234567890",
            "1.",
            ".5",
            "+1",
            "1e",
            "00",
        ] {
            same_as_serde(&format!("{{\"n\":{n}}}"));
            same_as_serde(&format!("[{n}]"));
        }
    }

    /// JSON text built from pieces that stress each path: escapes of every
    /// kind, surrogates paired and not, control characters, numbers, nesting
    /// and broken syntax.
    fn json_soup() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("{".to_owned()),
            Just("}".to_owned()),
            Just("[".to_owned()),
            Just("]".to_owned()),
            Just(",".to_owned()),
            Just(":".to_owned()),
            Just("\"".to_owned()),
            Just("\\".to_owned()),
            Just(" \n".to_owned()),
            Just("\"k\":".to_owned()),
            Just("\\u".to_owned()),
            Just("\\ud83d\\ude00".to_owned()),
            Just("\\ud83d".to_owned()),
            Just("\\udc00".to_owned()),
            Just("\\n\\\"\\\\\\/\\t".to_owned()),
            Just("\t".to_owned()),
            Just("true".to_owned()),
            Just("null".to_owned()),
            "-?[0-9]{1,22}(\\.[0-9]{0,3})?([eE][+-]?[0-9]{0,3})?",
            "[a-zA-Z0-9 é日😀]{0,12}",
            "[0-9a-fA-F]{0,4}",
        ];
        proptest::collection::vec(piece, 0..24).prop_map(|v| v.concat())
    }

    /// Well-formed objects, so that the settled path is the one compared.
    fn json_object() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            any::<i64>().prop_map(|n| n.to_string()),
            any::<f64>().prop_map(|f| serde_json::to_string(&f).unwrap_or_default()),
            any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
            "[\\\\\"\n/a-z ]{0,40}".prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
            Just("true".to_owned()),
            Just("null".to_owned()),
        ];
        let value = leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                proptest::collection::vec(("[a-z\"\\\\]{0,3}", inner), 0..5).prop_map(|v| {
                    let fields: Vec<String> = v
                        .into_iter()
                        .map(|(k, v)| {
                            format!("{}: {v}", serde_json::to_string(&k).unwrap_or_default())
                        })
                        .collect();
                    format!("{{ {} }}", fields.join(" ,\n"))
                }),
            ]
        });
        proptest::collection::vec(("[a-z]{0,3}", value), 0..5).prop_map(|v| {
            let fields: Vec<String> = v.into_iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            format!("{{{}}}", fields.join(","))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn soup_reads_as_serde_reads_it(text in json_soup()) {
            same_as_serde(&text);
            same_as_serde(&format!("{{\"a\":\"{text}\"}}"));
            same_as_serde(&format!("{{\"a\":{text}}}"));
        }

        #[test]
        fn objects_read_as_serde_reads_them(text in json_object()) {
            prop_assert!(Parser::new(&text).whole_object().is_some(), "{text:?}");
            same_as_serde(&text);
        }
    }
}
