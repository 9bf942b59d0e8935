//! `gbnf_after`: a text that ends inside a call's opening (a prefilled
//! trigger) resumes in a grammar that accepts exactly the rest of the calls
//! derived from the whole grammar, in every dialect.

#![allow(clippy::unwrap_used)]

use super::checks::matches;
use super::derive::Deriver;
use super::roundtrip::{DIALECTS, tool_sets};
use crate::grammar::{GrammarOptions, GrammarTool, ToolChoice, build_grammar};

const BEFORE: &str = "Sure.\n";

#[test]
fn a_text_ending_in_a_call_opening_resumes_with_the_rest_of_the_call() {
    for tools in tool_sets() {
        let specs: Vec<GrammarTool<'_>> =
            tools.iter().map(|(n, s)| GrammarTool::new(n, s)).collect();
        for &dialect in DIALECTS {
            for (choice, parallel) in [
                (ToolChoice::Auto, true),
                (ToolChoice::Required, false),
                (ToolChoice::Named(tools[0].0.clone()), true),
            ] {
                let mut options = GrammarOptions::new(choice.clone());
                options.parallel_tool_calls = parallel;
                let grammar = build_grammar(&specs, dialect, &options).expect("builds");
                let calls = grammar.lazy_root.as_ref().unwrap_or(&grammar.root);
                for seed in 0..3u64 {
                    let mut deriver = Deriver::new(&grammar.grammar, seed);
                    deriver.derive(calls);
                    let text = deriver.out;
                    // The opening of the call the text starts with.
                    let tag = grammar
                        .tags
                        .iter()
                        .filter(|tag| text.starts_with(tag.begin.as_str()))
                        .max_by_key(|tag| tag.begin.len())
                        .unwrap_or_else(|| panic!("{dialect}: no tag opens {text:?}"));
                    let trigger = &grammar.triggers[tag.trigger];
                    let mut resumed_at_trigger = false;
                    for k in 1..=tag.begin.len() {
                        if !text.is_char_boundary(k) {
                            continue;
                        }
                        let written = format!("{BEFORE}{}", &text[..k]);
                        let found = grammar.resume(&written);
                        if k < trigger.len() {
                            assert!(
                                found.is_none(),
                                "{dialect} {choice:?}: resumed before the trigger in {written:?}"
                            );
                            continue;
                        }
                        let (start, rest) = found.unwrap_or_else(|| {
                            panic!("{dialect} {choice:?}: no resumption after {written:?}")
                        });
                        assert_eq!(start, BEFORE.len(), "{dialect}: {written:?}");
                        assert!(
                            matches(&grammar.grammar, &rest, &text[k..]),
                            "{dialect} {choice:?}: the rest of {text:?} after {k} bytes is refused"
                        );
                        // Not a grammar that accepts anything: a call cut
                        // short is refused.
                        assert!(
                            !matches(&grammar.grammar, &rest, &text[k..text.len() - 1]),
                            "{dialect} {choice:?}: a cut call is accepted after {k} bytes of {text:?}"
                        );
                        resumed_at_trigger |= k == trigger.len();
                        let gbnf = grammar.gbnf_after(&written).expect("resumes");
                        assert_eq!(gbnf.call_start, BEFORE.len());
                        assert!(gbnf.gbnf.starts_with("root ::= "), "{}", gbnf.gbnf);
                    }
                    assert!(resumed_at_trigger || trigger.len() > tag.begin.len());
                }
            }
        }
    }
}

#[test]
fn text_that_opens_no_call_does_not_resume() {
    let tools = tool_sets().remove(0);
    let specs: Vec<GrammarTool<'_>> = tools.iter().map(|(n, s)| GrammarTool::new(n, s)).collect();
    let auto = build_grammar(
        &specs,
        crate::core::WireFormat::Xml,
        &GrammarOptions::new(ToolChoice::Auto),
    )
    .expect("builds");
    for written in [
        "",
        "Sure.",
        "<",
        "<get_weathe",
        "<get_weather>\n<city>Paris",
    ] {
        assert!(auto.gbnf_after(written).is_none(), "{written:?}");
    }
    let resumed = auto.gbnf_after("Sure. <get_weather>").expect("resumes");
    assert_eq!(resumed.call_start, "Sure. ".len());
    // The rest starts with the newline after the tag and no trigger again.
    assert!(
        resumed.gbnf.starts_with("root ::= \"\\n"),
        "{}",
        resumed.gbnf
    );
    let none = build_grammar(
        &specs,
        crate::core::WireFormat::Xml,
        &GrammarOptions::new(ToolChoice::None),
    )
    .expect("builds");
    assert!(none.gbnf_after("Sure. <get_weather>").is_none());
}
