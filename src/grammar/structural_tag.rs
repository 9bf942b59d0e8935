//! The grammar as an XGrammar structural tag: `triggered_tags` whose tags
//! are the dialect's call regions (`begin`, `content`, `end`), JSON
//! arguments as `json_schema` content and everything else as `grammar`
//! content in GBNF, which XGrammar's EBNF reads.

use serde_json::{Map, Value, json};

use super::build::ToolGrammar;
use super::gbnf;
use super::ir::{Mark, Node};
use super::options::ToolChoice;

/// `{"type": "structural_tag", "format": …}` for the whole output.
pub(crate) fn write(tg: &ToolGrammar) -> Value {
    let calls = match tg.choice {
        ToolChoice::None => json!({"type": "any_text", "excludes": tg.triggers}),
        _ => {
            let tags: Vec<Value> = tg
                .tags
                .iter()
                .map(|tag| {
                    json!({
                        "type": "tag",
                        "begin": tag.begin,
                        "content": format(tg, &tag.content),
                        "end": tag.end,
                    })
                })
                .collect();
            let required = matches!(tg.choice, ToolChoice::Required | ToolChoice::Named(_));
            json!({
                "type": "triggered_tags",
                "triggers": tg.triggers,
                "tags": tags,
                "at_least_one": required,
                "stop_after_first": !tg.parallel || matches!(
                    super::dialect::envelope(tg.dialect).map(|e| e.layout),
                    Some(super::dialect::Layout::Section { .. })
                ),
            })
        }
    };
    let format = match reasoning(tg) {
        Some(think) => json!({"type": "sequence", "elements": [think, calls]}),
        None => calls,
    };
    json!({"type": "structural_tag", "format": format})
}

/// The optional reasoning block, when the grammar allows one.
fn reasoning(tg: &ToolGrammar) -> Option<Value> {
    // The root's first part is the optional block when it was asked for.
    let Node::Rule(root) = &tg.root else {
        return None;
    };
    let Node::Seq(parts) = &tg.grammar.get(*root).body else {
        return None;
    };
    let Some(Node::Repeat {
        node,
        min: 0,
        max: Some(1),
    }) = parts.first()
    else {
        return None;
    };
    let Node::Seq(block) = node.as_ref() else {
        return None;
    };
    match block.as_slice() {
        [Node::Lit(open), Node::Text { words, .. }, Node::Lit(close)] => Some(json!({
            "type": "optional",
            "content": {
                "type": "tag",
                "begin": open,
                "content": {"type": "any_text", "excludes": words},
                "end": close,
            }
        })),
        _ => None,
    }
}

/// A node as a structural-tag format: envelope structure as formats, JSON
/// arguments as `json_schema`, the rest as a `grammar`.
fn format(tg: &ToolGrammar, node: &Node) -> Value {
    match node {
        Node::Empty => json!({"type": "const_string", "value": ""}),
        Node::Lit(s) => json!({"type": "const_string", "value": s}),
        Node::Mark(Mark::JsonArgs(i), _) => match tg
            .json_spans
            .get(*i)
            .and_then(|span| tg.json_schemas.get(span.clone()))
            .and_then(|text| serde_json::from_slice::<Map<String, Value>>(text).ok())
        {
            Some(mut schema) => {
                schema
                    .entry("type")
                    .or_insert_with(|| Value::String("object".into()));
                json!({"type": "json_schema", "json_schema": schema})
            }
            None => grammar(tg, node),
        },
        Node::Mark(_, inner) if is_envelope(inner) => format(tg, inner),
        Node::Seq(parts) if parts.iter().all(is_envelope) => {
            json!({"type": "sequence", "elements": parts.iter().map(|p| format(tg, p)).collect::<Vec<_>>()})
        }
        Node::Alt(options) if options.iter().all(is_envelope) => {
            json!({"type": "or", "elements": options.iter().map(|p| format(tg, p)).collect::<Vec<_>>()})
        }
        Node::Repeat {
            node: inner,
            min,
            max,
        } if is_envelope(inner) => {
            let content = format(tg, inner);
            match (min, max) {
                (0, Some(1)) => json!({"type": "optional", "content": content}),
                (0, None) => json!({"type": "star", "content": content}),
                (1, None) => json!({"type": "plus", "content": content}),
                (m, n) => {
                    json!({"type": "repeat", "min": m, "max": n.map_or(-1, i64::from), "content": content})
                }
            }
        }
        Node::Rule(id) if tg.grammar.get(*id).name == "call" => {
            format(tg, &tg.grammar.get(*id).body)
        }
        _ => grammar(tg, node),
    }
}

/// Whether a node is written as formats (its JSON arguments included)
/// rather than as one grammar.
fn is_envelope(node: &Node) -> bool {
    match node {
        Node::Empty | Node::Lit(_) | Node::Mark(Mark::JsonArgs(_), _) => true,
        Node::Mark(_, inner) => is_envelope(inner),
        Node::Rule(_) => true,
        Node::Seq(parts) | Node::Alt(parts) => parts.iter().all(is_envelope),
        Node::Repeat { node, .. } => is_envelope(node),
        Node::Class(_) | Node::Text { .. } => false,
    }
}

fn grammar(tg: &ToolGrammar, node: &Node) -> Value {
    json!({"type": "grammar", "grammar": gbnf::write(&tg.grammar, node)})
}
