//! [`ToolGrammar::gbnf_after`]: the grammar of what may follow a text that
//! already opens a call, such as an assistant turn a client prefilled with a
//! dialect's trigger. A grammar, lazy or not, constrains what the server
//! samples, never the prompt: a call begun in the prompt must be finished by
//! a grammar that starts where the prompt stops.

use super::build::ToolGrammar;
use super::gbnf;
use super::ir::Node;

/// The end of a written text that opens a call, and the GBNF of what may
/// follow it ([`ToolGrammar::gbnf_after`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resumed {
    /// Where in the written text the open call begins (a byte offset): the
    /// text from there on is part of the call, and a detector reading the
    /// answer must read it first.
    pub call_start: usize,
    /// The grammar of the rest: that call finished, then, where the
    /// grammar allows several calls, more of them. Never lazy.
    pub gbnf: String,
}

impl ToolGrammar {
    /// When `written` ends inside the opening of a call (past one of the
    /// [`triggers`](ToolGrammar::triggers), within the text that names the
    /// tool), the grammar of what may follow: the rest of that call, then
    /// more calls where the grammar allows them. `None` when `written` does
    /// not end so, and for [`ToolChoice::None`](super::ToolChoice::None).
    ///
    /// ```
    /// use serde_json::json;
    /// use toolrouter::{GrammarOptions, GrammarTool, ToolChoice, WireFormat, build_grammar};
    ///
    /// let schema = json!({"type": "object", "properties": {"city": {"type": "string"}},
    ///                     "required": ["city"]});
    /// let tools = [GrammarTool::new("get_weather", schema.as_object().unwrap())];
    /// let options = GrammarOptions::new(ToolChoice::Auto);
    /// let grammar = build_grammar(&tools, WireFormat::Hermes, &options).unwrap();
    /// let resumed = grammar.gbnf_after("Let me look.\n<tool_call>").unwrap();
    /// assert_eq!(resumed.call_start, "Let me look.\n".len());
    /// assert!(resumed.gbnf.starts_with("root ::= \"\\n{\\\"name\\\": \\\"get_weather"));
    /// assert!(grammar.gbnf_after("Let me look.").is_none());
    /// ```
    pub fn gbnf_after(&self, written: &str) -> Option<Resumed> {
        let (call_start, root) = self.resume(written)?;
        Some(Resumed {
            call_start,
            gbnf: gbnf::write(&self.grammar, &root),
        })
    }

    /// [`gbnf_after`](Self::gbnf_after)'s grammar in the representation:
    /// where the call begins in `written`, and the root of the rest.
    pub(crate) fn resume(&self, written: &str) -> Option<(usize, Node)> {
        // The longest end of `written` that is a prefix of a call's opening
        // text, at least as long as that call's trigger; every call whose
        // opening it begins may follow.
        let mut best: Option<(usize, Vec<Node>)> = None;
        for tag in &self.tags {
            let trigger = self.triggers.get(tag.trigger).map_or(0, String::len);
            let begin = tag.begin.as_str();
            let longest = (trigger.max(1)..=begin.len())
                .rev()
                .filter(|&k| begin.is_char_boundary(k))
                .find(|&k| written.ends_with(&begin[..k]));
            let Some(k) = longest else { continue };
            let rest = Node::seq([
                Node::lit(&begin[k..]),
                tag.content.clone(),
                Node::lit(tag.end.clone()),
                self.after_call.clone(),
            ]);
            match &mut best {
                Some((len, options)) if *len == k => options.push(rest),
                Some((len, _)) if *len > k => {}
                _ => best = Some((k, vec![rest])),
            }
        }
        let (len, options) = best?;
        Some((written.len() - len, Node::alt(options)))
    }
}
