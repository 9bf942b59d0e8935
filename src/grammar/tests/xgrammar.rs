//! The grammars against XGrammar itself (vLLM's and SGLang's grammar
//! engine): every dialect's GBNF (`gbnf()`, and `gbnf_whole()` when lazy) and
//! structural tag, for each tool set and choice, with and without parallel
//! calls, must compile, accept the strings derived from the grammar and
//! terminate after them, and refuse corrupted ones.
//!
//! The cases go as JSON to `tests/grammar/xgrammar_check.py`, run with the
//! interpreter of the pypkg venv (`$TOOLROUTER_EXT_DIR/pypkg`, default
//! `target/ext/pypkg`) where `.ci/python-pkg.sh` installs vLLM and XGrammar
//! 0.2.8. Without it the test says `SKIPPED` and passes, unless
//! `TOOLROUTER_REQUIRE_XGRAMMAR=1` (`.ci/run` sets it).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use super::checks::matches;
use super::derive::{Deriver, Span};
use super::roundtrip::{DIALECTS, tool_sets};
use crate::grammar::ir::{Mark, Node};
use crate::grammar::{GrammarOptions, GrammarTool, ToolChoice, ToolGrammar, build_grammar};

/// Derivations per grammar form.
const SEEDS: u64 = 3;

/// A tool name in no tool set.
const UNKNOWN: &str = "no_such_tool";

/// One input and whether the grammar must take it (accept every byte, then
/// terminate).
struct Input {
    text: String,
    expect: bool,
    what: &'static str,
}

struct Case {
    id: String,
    kind: &'static str,
    grammar: String,
    inputs: Vec<Input>,
}

impl Case {
    fn push(&mut self, text: String, expect: bool, what: &'static str) {
        if !self.inputs.iter().any(|i| i.text == text) {
            self.inputs.push(Input { text, expect, what });
        }
    }
}

/// The pypkg venv's interpreter: `Ok` when it imports `xgrammar`, else
/// `Err` with where it was looked for.
fn python() -> Result<PathBuf, PathBuf> {
    let ext = match std::env::var_os("TOOLROUTER_EXT_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ext"),
    };
    let python = ext.join("pypkg/bin/python3");
    let imports = python.is_file()
        && Command::new(&python)
            .args(["-c", "import xgrammar"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    if imports { Ok(python) } else { Err(python) }
}

/// The text without its last char (one byte wherever a call ends).
fn cut(text: &str) -> Option<String> {
    let (at, _) = text.char_indices().next_back()?;
    Some(text[..at].to_owned())
}

/// The calls of `spans`, in order.
fn calls(spans: &[Span]) -> Vec<&Span> {
    fn walk<'s>(spans: &'s [Span], out: &mut Vec<&'s Span>) {
        for span in spans {
            if span.mark == Mark::Call {
                out.push(span);
            } else {
                walk(&span.children, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(spans, &mut out);
    out.sort_by_key(|s| s.start);
    out
}

/// The text with its first call's tool name replaced by [`UNKNOWN`]; where
/// that call starts.
fn renamed(text: &str, spans: &[Span]) -> Option<(String, usize)> {
    let call = *calls(spans).first()?;
    let name = call.children.iter().find(|s| s.mark == Mark::Name)?;
    let text = format!("{}{UNKNOWN}{}", &text[..name.start], &text[name.end..]);
    Some((text, call.start))
}

/// Strings derived from `node` of `tg`'s grammar, and their corruptions
/// (cut one char short, a call of an unknown tool), each expected as the
/// grammar's own matcher (`checks::matches`) reads it.
fn ebnf_case(id: String, tg: &ToolGrammar, node: &Node, gbnf: String) -> Case {
    let mut case = Case {
        id,
        kind: "ebnf",
        grammar: gbnf,
        inputs: Vec::new(),
    };
    let g = &tg.grammar;
    for seed in 0..SEEDS {
        let mut deriver = Deriver::new(g, seed);
        let spans = deriver.derive(node);
        let text = deriver.out;
        assert!(
            matches(g, node, &text),
            "{}: derived {text:?} does not match",
            case.id
        );
        if let Some(cut) = cut(&text) {
            let expect = matches(g, node, &cut);
            case.push(cut, expect, "cut one char short");
        }
        if let Some((other, _)) = renamed(&text, &spans) {
            // Free text, where the trigger is the call's own opening.
            let expect = matches(g, node, &other);
            case.push(other, expect, "a call of an unknown tool");
        }
        if tg.choice == ToolChoice::None
            && let Some(trigger) = tg.triggers.first()
        {
            case.push(format!("{text}{trigger}"), false, "text, then a trigger");
        }
        case.push(text, true, "derived");
    }
    case
}

/// Strings derived from the whole output, and corruptions the structural
/// tag must refuse: a derivation that ends with a call, cut one char short;
/// a call of an unknown tool where its trigger is still there (a fixed
/// trigger), or where the choice requires a call and no trigger is left.
/// (Elsewhere a call of an unknown tool is free text to `triggered_tags`.)
fn structural_tag_case(id: String, tg: &ToolGrammar) -> Case {
    let mut case = Case {
        id,
        kind: "structural_tag",
        grammar: tg.structural_tag().to_string(),
        inputs: Vec::new(),
    };
    let required = matches!(tg.choice, ToolChoice::Required | ToolChoice::Named(_));
    for seed in 0..SEEDS {
        let mut deriver = Deriver::new(&tg.grammar, seed);
        let spans = deriver.derive(&tg.root);
        let text = deriver.out;
        let ends_with_call = calls(&spans).last().is_some_and(|c| c.end == text.len());
        if ends_with_call && let Some(cut) = cut(&text) {
            case.push(cut, false, "cut one char short");
        }
        if let Some((other, start)) = renamed(&text, &spans) {
            let triggered = tg
                .triggers
                .iter()
                .any(|t| other[start..].starts_with(t.as_str()));
            let untriggered = !tg.triggers.iter().any(|t| other.contains(t.as_str()));
            if triggered || (required && untriggered) {
                case.push(other, false, "a call of an unknown tool");
            }
        }
        if tg.choice == ToolChoice::None
            && let Some(trigger) = tg.triggers.first()
        {
            case.push(format!("{text}{trigger}"), false, "text, then a trigger");
        }
        case.push(text, true, "derived");
    }
    case
}

/// Every case: each dialect, tool set and choice, with and without parallel
/// calls (the reasoning block in half of them).
fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for (set, tools) in tool_sets().iter().enumerate() {
        let specs: Vec<GrammarTool<'_>> =
            tools.iter().map(|(n, s)| GrammarTool::new(n, s)).collect();
        let last = tools.last().map(|(n, _)| n.clone()).unwrap_or_default();
        let mut choices = Vec::new();
        for parallel in [false, true] {
            for choice in [
                ToolChoice::Required,
                ToolChoice::Named(last.clone()),
                ToolChoice::Auto,
            ] {
                choices.push((choice, parallel));
            }
        }
        choices.push((ToolChoice::None, false));
        for &dialect in DIALECTS {
            for (choice, parallel) in &choices {
                let reasoning = (set + usize::from(*parallel)) % 2 == 1;
                let options = GrammarOptions {
                    tool_choice: choice.clone(),
                    parallel_tool_calls: *parallel,
                    reasoning,
                    ..GrammarOptions::default()
                };
                let tg = build_grammar(&specs, dialect, &options)
                    .unwrap_or_else(|e| panic!("{dialect} set {set} {choice:?}: {e}"));
                let id = |form: &str| {
                    format!(
                        "{dialect} set {set} {choice:?} parallel={parallel} reasoning={reasoning}: {form}"
                    )
                };
                let calls = tg.lazy_root.as_ref().unwrap_or(&tg.root);
                out.push(ebnf_case(id("gbnf()"), &tg, calls, tg.gbnf()));
                if tg.is_lazy() {
                    out.push(ebnf_case(
                        id("gbnf_whole()"),
                        &tg,
                        &tg.root,
                        tg.gbnf_whole(),
                    ));
                }
                out.push(structural_tag_case(id("structural_tag()"), &tg));
            }
        }
    }
    out
}

fn excerpt(text: &str, at: Option<u64>) -> String {
    let Some(at) = at.and_then(|a| usize::try_from(a).ok()) else {
        return format!("{text:?}");
    };
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    format!("{:?} ⟨refused here⟩ {:?}", &text[..at], &text[at..])
}

#[test]
fn xgrammar_compiles_every_grammar_and_accepts_exactly_the_derived_strings() {
    let python = match python() {
        Ok(python) => python,
        Err(missing) => {
            let required =
                std::env::var_os("TOOLROUTER_REQUIRE_XGRAMMAR").is_some_and(|v| v == "1");
            assert!(
                !required,
                "TOOLROUTER_REQUIRE_XGRAMMAR=1 but {} does not import xgrammar (run .ci/python-pkg.sh)",
                missing.display()
            );
            eprintln!(
                "SKIPPED: {} does not import xgrammar (run .ci/python-pkg.sh); the grammars were not checked against XGrammar",
                missing.display()
            );
            return;
        }
    };
    // The naive matcher recurses once per char of free text.
    let cases = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(cases)
        .expect("spawn")
        .join()
        .expect("cases");
    let payload: Vec<Value> = cases
        .iter()
        .map(|c| {
            json!({
                "id": c.id,
                "kind": c.kind,
                "grammar": c.grammar,
                "inputs": c.inputs.iter().map(|i| i.text.as_str()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut file = tempfile::Builder::new()
        .prefix("xgrammar-cases-")
        .suffix(".json")
        .tempfile()
        .expect("temp file");
    serde_json::to_writer(&mut file, &payload).expect("write cases");
    file.flush().expect("flush cases");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/grammar/xgrammar_check.py");
    // Its stderr (XGrammar's warnings: `oneOf` read as `anyOf`) is shown
    // only when it fails.
    let output = Command::new(&python)
        .arg(&script)
        .arg(file.path())
        .output()
        .expect("run xgrammar_check.py");
    assert!(
        output.status.success(),
        "xgrammar_check.py failed with {}:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let verdicts: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a verdict line"))
        .collect();
    assert_eq!(verdicts.len(), cases.len(), "one verdict per case");

    let mut failures = Vec::new();
    let (mut inputs, mut refusals) = (0, 0);
    for (case, verdict) in cases.iter().zip(&verdicts) {
        assert_eq!(verdict["id"], case.id.as_str());
        if let Some(error) = verdict["error"].as_str() {
            failures.push(format!(
                "{}: XGrammar refused the grammar: {error}\n{}",
                case.id, case.grammar
            ));
            continue;
        }
        let results = verdict["results"].as_array().expect("results");
        assert_eq!(results.len(), case.inputs.len());
        for (input, result) in case.inputs.iter().zip(results) {
            inputs += 1;
            refusals += usize::from(!input.expect);
            let taken = result["accepted"] == true
                && result["completed"] == true
                && result["terminated"] == true;
            if taken != input.expect {
                failures.push(format!(
                    "{}: {} {}: expected {}, XGrammar {result}: {}",
                    case.id,
                    input.what,
                    if input.expect { "taken" } else { "refused" },
                    input.expect,
                    excerpt(&input.text, result["rejected_at"].as_u64()),
                ));
            }
        }
    }
    eprintln!(
        "XGrammar: {} grammars, {inputs} inputs ({refusals} to refuse), {} failures",
        cases.len(),
        failures.len()
    );
    if !failures.is_empty() {
        let kept = file.keep().map(|(_, p)| p.display().to_string());
        panic!(
            "{} of XGrammar's verdicts differ (cases kept in {kept:?}):\n{}",
            failures.len(),
            failures[..failures.len().min(60)].join("\n")
        );
    }
    assert!(refusals > 0, "no corrupted input was checked");
}
