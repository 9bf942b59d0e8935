//! Unit tests of the pythonic literal converter.

use super::*;

/// Feeds `pieces` as a stream; returns the JSON and the bytes after the closer.
fn run(syntax: Syntax, pieces: &[&str]) -> Result<(String, String), String> {
    let mut conv = ArgsConv::new(syntax);
    let mut pending = String::new();
    for (k, piece) in pieces.iter().enumerate() {
        pending.push_str(piece);
        let eof = k + 1 == pieces.len();
        match conv.feed(&pending, eof, None) {
            Step::NeedMore(n) => {
                pending.drain(..n);
            }
            Step::Done(n) => {
                let rest = format!("{}{}", &pending[n..], pieces[k + 1..].concat());
                return Ok((conv.json().to_owned(), rest));
            }
            Step::Invalid(_, m) => return Err(m),
        }
    }
    Err("unfinished".to_owned())
}

/// The whole input and every one-character split agree.
fn convert(syntax: Syntax, input: &str) -> Result<(String, String), String> {
    let whole = run(syntax, &[input]);
    let chars: Vec<&str> = input
        .char_indices()
        .map(|(i, c)| &input[i..i + c.len_utf8()])
        .collect();
    assert_eq!(
        run(syntax, &chars),
        whole,
        "one character per piece: {input}"
    );
    for cut in 1..input.len() {
        if input.is_char_boundary(cut) {
            let two = run(syntax, &[&input[..cut], &input[cut..]]);
            assert_eq!(two, whole, "cut at {cut}: {input}");
        }
    }
    whole
}

fn ok(json: &str, rest: &str) -> Result<(String, String), String> {
    Ok((json.to_owned(), rest.to_owned()))
}

#[test]
fn numbers_map_to_json_numbers() {
    for (python, json) in [
        ("1_000", "1000"),
        ("0x1F", "31"),
        ("-0o17", "-15"),
        ("0b101", "5"),
        (".5", "0.5"),
        ("5.", "5.0"),
        ("007", "7"),
        ("-0", "-0"),
        ("1E+3", "1e+3"),
        ("2.5e-3", "2.5e-3"),
        ("+4", "4"),
    ] {
        assert_eq!(number_json(python).as_deref(), Some(json), "{python}");
    }
    for bad in ["1e", "1j", "1e999", ".", "0x", "1.2.3", "-", "12ab", "0xZZ"] {
        assert_eq!(number_json(bad), None, "{bad}");
    }
}

#[test]
fn python_arguments_stream_as_json() {
    assert_eq!(
        convert(
            Syntax::Python,
            r#"a='x\ud83d\ude00y\'', b=[1, (2,), {'k': None, 3: ()}], c="""q"""  ,)] tail"#
        ),
        ok(
            r#"{"a":"x😀y'","b":[1,[2],{"k":null,"3":[]}],"c":"q"}"#,
            "] tail"
        )
    );
    assert_eq!(convert(Syntax::Python, ")"), ok("{}", ""));
    assert_eq!(
        convert(Syntax::Python, "a = 'p' r'\\q' u\"r\" )"),
        ok(r#"{"a":"p\\qr"}"#, "")
    );
}

#[test]
fn sets_become_arrays_in_source_order_and_braces_wait_for_their_first_entry() {
    for (python, json) in [
        ("a={'urgent', 'bug'})", r#"{"a":["urgent","bug"]}"#),
        ("a={'x'})", r#"{"a":["x"]}"#),
        (
            "a={ 1 , True, None, -2.5e3, 'q' 'r', }, b=1)",
            r#"{"a":[1,true,null,-2.5e3,"qr"],"b":1}"#,
        ),
        ("a={'a', 'a'})", r#"{"a":["a","a"]}"#),
        ("a={})", r#"{"a":{}}"#),
        ("a={ })", r#"{"a":{}}"#),
        (
            "a={1: {2}, 'k': {}, None: {3: 'v'}})",
            r#"{"a":{"1":[2],"k":{},"null":{"3":"v"}}}"#,
        ),
        ("a=[{'s'}, {'d': 1}])", r#"{"a":[["s"],{"d":1}]}"#),
    ] {
        assert_eq!(convert(Syntax::Python, python), ok(json, ""), "{python}");
    }
    // Gemma's `{` is always a dict.
    assert_eq!(
        convert(Syntax::Gemma, "a:{b:1}}"),
        ok(r#"{"a":{"b":1}}"#, "")
    );
}

#[test]
fn gemma_arguments_stream_as_json() {
    assert_eq!(
        convert(
            Syntax::Gemma,
            "a:<|\"|>x\\n \"<|y<|\"|>,b:[true,-1.5,{c:null}],<|\"|>d e<|\"|>:1}<tool_call|>"
        ),
        ok(
            r#"{"a":"x\\n \"<|y","b":[true,-1.5,{"c":null}],"d e":1}"#,
            "<tool_call|>"
        )
    );
}

#[test]
fn escapes_split_anywhere_decode_once() {
    assert_eq!(
        convert(
            Syntax::Python,
            r"a='\x41\101\u00e9\U0001F600\ud800\udc00\udc00\ud83d x\q\N{A}\z')"
        ),
        ok("{\"a\":\"AAé😀𐀀\u{fffd}\u{fffd} x\\\\q\\\\N{A}\\\\z\"}", "")
    );
}

#[test]
fn malformed_argument_lists_are_invalid_not_panics() {
    for input in [
        "a=foo)",
        "'a')",
        "a=1 2)",
        "a=[1,,2])",
        "a={1, [2]})",
        "a={(1,), 2})",
        "a={1: 2, 3})",
        "a={'a', 'b': 1})",
        "a={(1,): 2})",
        "a=[1)",
        "a=1e999)",
        "a=b'x')",
        "=1)",
    ] {
        assert!(convert(Syntax::Python, input).is_err(), "{input}");
    }
    let deep = format!("a={}", "[".repeat(MAX_DEPTH + 5));
    assert!(run(Syntax::Python, &[&deep]).is_err());
    for input in ["a:<b>}", "a:x}", ":1}", "a 1}"] {
        assert!(convert(Syntax::Gemma, input).is_err(), "{input}");
    }
}
