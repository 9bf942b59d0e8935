//! Free text that never holds one of a few words (a dialect's triggers, the
//! end of a reasoning block), spelled with plain rules for GBNF: one rule
//! per state of the words' Aho-Corasick automaton, no transition into a state
//! that completes a word.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::error::GrammarError;
use super::ir::{CharClass, Grammar, Node, RuleId};

/// Free text holding none of `words` (one rule set per word list).
pub(crate) fn text_without(g: &mut Grammar, words: &[String]) -> Result<Node, GrammarError> {
    let key = format!("text-without-{}", words.join("\u{0}"));
    let lowered = match g.shared_id(&key) {
        Some(id) => id,
        None => {
            let id = lower_text(g, words)?;
            g.register_shared(&key, id);
            id
        }
    };
    Ok(Node::Text {
        words: words.to_vec(),
        lowered,
    })
}

/// The automaton's rules; the id of its start state's rule.
pub(crate) fn lower_text(g: &mut Grammar, words: &[String]) -> Result<RuleId, GrammarError> {
    let words: Vec<Vec<char>> = words
        .iter()
        .filter(|w| !w.is_empty())
        .map(|w| w.chars().collect())
        .collect();
    g.charge(words.iter().map(Vec::len).sum::<usize>() * 4)?;
    // The trie: state 0 is the root; `edges[s]` its children.
    let mut edges: Vec<BTreeMap<char, usize>> = vec![BTreeMap::new()];
    let mut done = vec![false];
    for w in &words {
        let mut s = 0;
        for &c in w {
            s = match edges[s].get(&c) {
                Some(&t) => t,
                None => {
                    edges.push(BTreeMap::new());
                    done.push(false);
                    let t = edges.len() - 1;
                    edges[s].insert(c, t);
                    t
                }
            };
        }
        done[s] = true;
    }
    // Failure links, breadth first; a state is forbidden when it or a
    // suffix state completes a word.
    let n = edges.len();
    let mut fail = vec![0usize; n];
    let mut order = Vec::with_capacity(n);
    let mut queue: std::collections::VecDeque<usize> = edges[0].values().copied().collect();
    while let Some(s) = queue.pop_front() {
        order.push(s);
        let children: Vec<(char, usize)> = edges[s].iter().map(|(&c, &t)| (c, t)).collect();
        for (c, t) in children {
            let mut f = fail[s];
            while f != 0 && !edges[f].contains_key(&c) {
                f = fail[f];
            }
            fail[t] = match edges[f].get(&c) {
                Some(&x) if x != t => x,
                _ => 0,
            };
            done[t] = done[t] || done[fail[t]];
            queue.push_back(t);
        }
    }
    let alphabet: BTreeSet<char> = words.iter().flatten().copied().collect();
    let step = |mut s: usize, c: char| loop {
        if let Some(&t) = edges[s].get(&c) {
            return t;
        }
        if s == 0 {
            return 0;
        }
        s = fail[s];
    };
    let ids: Vec<RuleId> = (0..n)
        .map(|s| g.reserve(if s == 0 { "text" } else { "text-state" }))
        .collect::<Result<_, _>>()?;
    let others: Vec<(char, char)> = alphabet.iter().map(|&c| (c, c)).collect();
    for s in 0..n {
        if done[s] {
            continue;
        }
        let mut by_target: HashMap<usize, Vec<char>> = HashMap::new();
        for &c in &alphabet {
            let t = step(s, c);
            if !done[t] {
                by_target.entry(t).or_default().push(c);
            }
        }
        let mut options = vec![
            Node::Empty,
            Node::seq([Node::Class(CharClass::not(&others)), Node::Rule(ids[0])]),
        ];
        let mut targets: Vec<(usize, Vec<char>)> = by_target.into_iter().collect();
        targets.sort();
        for (t, chars) in targets {
            let class = if chars.len() == 1 {
                Node::char(chars[0])
            } else {
                Node::Class(CharClass::of(
                    &chars.iter().map(|&c| (c, c)).collect::<Vec<_>>(),
                ))
            };
            options.push(Node::seq([class, Node::Rule(ids[t])]));
        }
        g.set(ids[s], Node::Alt(options))?;
    }
    Ok(ids[0])
}
