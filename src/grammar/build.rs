//! [`build_grammar`]: tools, a dialect and `tool_choice` into one
//! [`ToolGrammar`], written on demand as GBNF, Lark or a structural tag.

use serde_json::Value;

use super::args::args_node;
use super::dialect::{Envelope, Layout, Part, Trigger, envelope};
use super::error::GrammarError;
use super::ir::{CharClass, Grammar, Mark, Node};
use super::options::{GrammarOptions, GrammarTool, ToolChoice};
use super::schema::Converter;
use super::text::text_without;
use super::{gbnf, lark, structural_tag};
use crate::core::WireFormat;

/// A grammar for one dialect, one tool set and one `tool_choice`: what a
/// model may write, in the dialect it was trained on, so that every call it
/// writes reads back through the detector as a call of one of the tools with
/// arguments the schema allows (up to what is loosened; see
/// `docs/constrain.md`).
///
/// With [`ToolChoice::Auto`] the grammar is lazy ([`ToolGrammar::is_lazy`]):
/// free text until one of [`ToolGrammar::triggers`], then the calls.
#[derive(Debug, Clone)]
pub struct ToolGrammar {
    pub(crate) dialect: WireFormat,
    pub(crate) choice: ToolChoice,
    pub(crate) parallel: bool,
    pub(crate) grammar: Grammar,
    /// The whole output.
    pub(crate) root: Node,
    /// From a trigger on (`Auto` only).
    pub(crate) lazy_root: Option<Node>,
    pub(crate) triggers: Vec<String>,
    pub(crate) tags: Vec<Tag>,
    /// What may follow a call's end in a per-call layout: more calls, with
    /// parallel calls ([`ToolGrammar::gbnf_after`]).
    pub(crate) after_call: Node,
}

/// One call region as the structural tag dispatches it: `begin` (which
/// starts with `triggers[trigger]`), `content`, `end`.
#[derive(Debug, Clone)]
pub(crate) struct Tag {
    pub(crate) trigger: usize,
    pub(crate) begin: String,
    pub(crate) content: Node,
    pub(crate) end: String,
}

impl ToolGrammar {
    /// The dialect the calls are written in.
    pub fn dialect(&self) -> WireFormat {
        self.dialect
    }

    /// The `tool_choice` it was built for.
    pub fn tool_choice(&self) -> &ToolChoice {
        &self.choice
    }

    /// Whether the grammar is lazy: free text until a trigger, then the
    /// grammar ([`ToolChoice::Auto`]). [`ToolGrammar::gbnf`] is then the
    /// grammar from the trigger on (llama.cpp's `grammar_lazy` with
    /// `grammar_triggers`), [`ToolGrammar::gbnf_whole`] the whole output.
    pub fn is_lazy(&self) -> bool {
        self.lazy_root.is_some()
    }

    /// The texts that open a call region (a lazy grammar's triggers; the
    /// words free text never holds with [`ToolChoice::None`]).
    pub fn triggers(&self) -> &[String] {
        &self.triggers
    }

    /// The grammar as GBNF (llama.cpp, llama-cpp-python, vLLM's xgrammar
    /// backend, SGLang's `ebnf`). For a lazy grammar, its part from a
    /// trigger on.
    pub fn gbnf(&self) -> String {
        gbnf::write(&self.grammar, self.lazy_root.as_ref().unwrap_or(&self.root))
    }

    /// The grammar of the whole output as GBNF: for a lazy grammar, free
    /// text that holds no trigger, then optionally the calls.
    pub fn gbnf_whole(&self) -> String {
        gbnf::write(&self.grammar, &self.root)
    }

    /// The grammar of the whole output in llguidance's Lark syntax.
    pub fn lark(&self) -> String {
        lark::write(self)
    }

    /// The whole output as an XGrammar structural tag
    /// (`{"type": "structural_tag", "format": …}`, lazy with `triggered_tags`),
    /// for vLLM's and SGLang's `response_format`.
    pub fn structural_tag(&self) -> Value {
        structural_tag::write(self)
    }

    /// The number of rules the grammar holds (its size, for limits and
    /// benches).
    pub fn rule_count(&self) -> usize {
        self.grammar.rules.len()
    }
}

/// Builds the grammar of `tools` in `dialect` for `options`.
///
/// ```
/// use serde_json::json;
/// use toolrouter::{GrammarOptions, GrammarTool, ToolChoice, WireFormat, build_grammar};
///
/// let schema = json!({"type": "object", "properties": {"city": {"type": "string"}},
///                     "required": ["city"]});
/// let schema = schema.as_object().unwrap();
/// let tools = [GrammarTool::new("get_weather", schema)];
/// let options = GrammarOptions::new(ToolChoice::Required);
/// let grammar = build_grammar(&tools, WireFormat::Hermes, &options).unwrap();
/// assert!(grammar.gbnf().starts_with("root ::= "));
/// assert!(grammar.gbnf().contains("get_weather"));
/// ```
pub fn build_grammar(
    tools: &[GrammarTool<'_>],
    dialect: WireFormat,
    options: &GrammarOptions,
) -> Result<ToolGrammar, GrammarError> {
    let env = envelope(dialect).ok_or(GrammarError::NotATextDialect(dialect))?;
    for tool in tools {
        check_name(tool.name)?;
    }
    let called: Vec<GrammarTool<'_>> = match &options.tool_choice {
        ToolChoice::Named(name) => {
            let tool = tools
                .iter()
                .find(|t| t.name == name)
                .ok_or_else(|| GrammarError::UnknownTool(name.clone()))?;
            vec![*tool]
        }
        ToolChoice::None => Vec::new(),
        ToolChoice::Auto | ToolChoice::Required => tools.to_vec(),
    };
    if called.is_empty() && options.tool_choice != ToolChoice::None {
        return Err(GrammarError::NoTools);
    }
    let mut g = Grammar::with_budget(options.limits.budget);
    let triggers = triggers(&env, if called.is_empty() { tools } else { &called });

    // Each call: its literal text before the arguments, the arguments (and
    // what else is not fixed), its literal text after.
    let mut pieces = Vec::with_capacity(called.len());
    for (index, tool) in called.iter().enumerate() {
        let args = {
            let mut conv = Converter::new(
                &mut g,
                dialect,
                tool.name,
                tool.input_schema,
                options.limits,
            );
            args_node(&mut conv, index, tool.input_schema, env.args)?
        };
        pieces.push(call_pieces(&env, tool.name, args));
    }
    let calls: Vec<Node> = pieces
        .iter()
        .map(|(before, middle, after)| {
            Node::mark(
                Mark::Call,
                Node::seq([before.clone(), middle.clone(), Node::lit(after.clone())]),
            )
        })
        .collect();
    let parallel = options.parallel_tool_calls;
    let (calls_node, call_rule) = if calls.is_empty() {
        (Node::Empty, Node::Empty)
    } else {
        let call = g.rule("call", Node::alt(calls))?;
        let node = match env.layout {
            Layout::PerCall { sep } => repeated(&call, sep, parallel),
            Layout::Section { open, close, sep } => Node::seq([
                Node::lit(open),
                repeated(&call, sep, parallel),
                Node::lit(close),
            ]),
        };
        (g.rule("calls", node)?, call)
    };
    let reasoning = if options.reasoning {
        let r = env.reasoning;
        let text = text_without(&mut g, &[r.marker.to_owned()])?;
        Node::opt(Node::seq([Node::lit(r.open), text, Node::lit(r.close)]))
    } else {
        Node::Empty
    };
    // Free text: plain, or a whole answer of its own (harmony's final
    // channel, ended by its end tokens), which holds no call.
    let needs_text = matches!(options.tool_choice, ToolChoice::Auto | ToolChoice::None);
    let (text, answer) = match env.answer {
        _ if !needs_text => (Node::Empty, false),
        Some(header) => {
            let mut words = triggers.clone();
            words.extend(["<|end|>", "<|return|>", "<|start|>"].map(String::from));
            let text = text_without(&mut g, &words)?;
            (Node::seq([Node::lit(header), text]), true)
        }
        None => (text_without(&mut g, &triggers)?, false),
    };
    let (root_body, lazy_root) = match options.tool_choice {
        ToolChoice::Auto => {
            let body = if answer {
                Node::alt(vec![text, calls_node.clone()])
            } else {
                Node::seq([text, Node::opt(calls_node.clone())])
            };
            (Node::seq([reasoning, body]), Some(calls_node))
        }
        ToolChoice::None => (Node::seq([reasoning, text]), None),
        ToolChoice::Required | ToolChoice::Named(_) => (Node::seq([reasoning, calls_node]), None),
    };
    let root = g.rule("root", root_body)?;
    let tags = tags(&env, &triggers, &pieces, &call_rule, parallel);
    let after_call = match env.layout {
        Layout::PerCall { sep } if parallel && !pieces.is_empty() => {
            Node::repeat(Node::seq([Node::lit(sep), call_rule.clone()]), 0, None)
        }
        _ => Node::Empty,
    };
    Ok(ToolGrammar {
        dialect,
        choice: options.tool_choice.clone(),
        parallel,
        grammar: g,
        root,
        lazy_root,
        triggers,
        tags,
        after_call,
    })
}

/// `call`, or with `parallel` one or more joined by `sep`.
fn repeated(call: &Node, sep: &str, parallel: bool) -> Node {
    if !parallel {
        return call.clone();
    }
    Node::seq([
        call.clone(),
        Node::repeat(Node::seq([Node::lit(sep), call.clone()]), 0, None),
    ])
}

/// A name every dialect's markup holds.
fn check_name(name: &str) -> Result<(), GrammarError> {
    let ok = !name.is_empty()
        && name.len() <= 128
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(GrammarError::ToolName(name.to_owned()))
    }
}

/// The triggers of `tools` in this dialect.
fn triggers(env: &Envelope, tools: &[GrammarTool<'_>]) -> Vec<String> {
    match env.trigger {
        Trigger::Fixed(t) => vec![t.to_owned()],
        Trigger::PerTool => {
            let open = match env.layout {
                Layout::Section { open, .. } => open,
                Layout::PerCall { .. } => "",
            };
            tools
                .iter()
                .map(|tool| {
                    let mut t = open.to_owned();
                    let mut parts = env.call.iter();
                    for part in parts.by_ref() {
                        match part {
                            Part::Lit(s) => t.push_str(s),
                            Part::Name => {
                                t.push_str(tool.name);
                                break;
                            }
                            _ => break,
                        }
                    }
                    if let Some(Part::Lit(s)) = parts.next()
                        && let Some(c) = s.chars().next()
                    {
                        t.push(c);
                    }
                    t
                })
                .collect()
        }
    }
}

/// A call's literal text before its first part that is not fixed, the
/// parts from there to its last such part, and its literal text after.
fn call_pieces(env: &Envelope, name: &str, args: Node) -> (Node, Node, String) {
    let digit = || Node::Class(CharClass::of(&[('0', '9')]));
    let nodes: Vec<(Option<String>, Node)> = env
        .call
        .iter()
        .map(|part| match part {
            Part::Lit(s) => (Some((*s).to_owned()), Node::lit(*s)),
            Part::Name => (
                Some(name.to_owned()),
                Node::mark(Mark::Name, Node::lit(name)),
            ),
            Part::Digit => (None, digit()),
            _ => (None, args.clone()),
        })
        .collect();
    let first = nodes
        .iter()
        .position(|(t, _)| t.is_none())
        .unwrap_or(nodes.len());
    let last = nodes
        .iter()
        .rposition(|(t, _)| t.is_none())
        .map_or(first, |i| i + 1);
    let before = Node::seq(nodes[..first].iter().map(|(_, n)| n.clone()));
    let middle = Node::seq(nodes[first..last].iter().map(|(_, n)| n.clone()));
    let after: String = nodes[last..]
        .iter()
        .filter_map(|(t, _)| t.clone())
        .collect();
    (before, middle, after)
}

/// The literal text of a node made of literals and marked literals.
pub(crate) fn literal_of(node: &Node) -> Option<String> {
    match node {
        Node::Empty => Some(String::new()),
        Node::Lit(s) => Some(s.as_str().to_owned()),
        Node::Mark(_, inner) => literal_of(inner),
        Node::Seq(parts) => parts.iter().map(literal_of).collect(),
        _ => None,
    }
}

/// The call regions as the structural tag dispatches them: per call, or per
/// section (keyed by its first call).
fn tags(
    env: &Envelope,
    triggers: &[String],
    pieces: &[(Node, Node, String)],
    call: &Node,
    parallel: bool,
) -> Vec<Tag> {
    pieces
        .iter()
        .map(|(before, middle, after)| {
            let before = literal_of(before).unwrap_or_default();
            let (begin, content, end) = match env.layout {
                Layout::PerCall { .. } => (before, middle.clone(), after.clone()),
                Layout::Section { open, close, sep } => {
                    let more = if parallel {
                        Node::repeat(Node::seq([Node::lit(sep), call.clone()]), 0, None)
                    } else {
                        Node::Empty
                    };
                    (
                        format!("{open}{before}"),
                        Node::seq([middle.clone(), Node::lit(after.clone()), more]),
                        close.to_owned(),
                    )
                }
            };
            let trigger = triggers
                .iter()
                .position(|t| begin.starts_with(t.as_str()))
                .unwrap_or(0);
            Tag {
                trigger,
                begin,
                content,
                end,
            }
        })
        .collect()
}
