//! `GrammarCache`: grammars by (dialect, tools, choice), so that a request
//! repeating its tool set does not build its grammar again.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::build::{ToolGrammar, build_grammar};
use super::error::GrammarError;
use super::options::{GrammarOptions, GrammarTool};
use crate::core::WireFormat;

/// A small bounded cache of built grammars, keyed by a 128-bit hash of the
/// canonical inputs (the dialect, the options, each tool's name and schema
/// in order). When full, the least recently used grammar goes. Errors are not
/// kept. Safe to share between threads; a build runs outside the lock.
#[derive(Debug)]
pub struct GrammarCache {
    capacity: usize,
    inner: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    map: HashMap<u128, (Arc<ToolGrammar>, u64)>,
    clock: u64,
}

impl GrammarCache {
    /// A cache of at most `capacity` grammars (at least one).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            inner: Mutex::new(Entries::default()),
        }
    }

    /// The grammar of these inputs: the cached one, or a new one built and kept.
    pub fn get_or_build(
        &self,
        tools: &[GrammarTool<'_>],
        dialect: WireFormat,
        options: &GrammarOptions,
    ) -> Result<Arc<ToolGrammar>, GrammarError> {
        let key = cache_key(tools, dialect, options);
        {
            let mut entries = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            entries.clock += 1;
            let now = entries.clock;
            if let Some((grammar, used)) = entries.map.get_mut(&key) {
                *used = now;
                return Ok(Arc::clone(grammar));
            }
        }
        let grammar = Arc::new(build_grammar(tools, dialect, options)?);
        let mut entries = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if entries.map.len() >= self.capacity && !entries.map.contains_key(&key) {
            let oldest = entries
                .map
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| *k);
            if let Some(oldest) = oldest {
                entries.map.remove(&oldest);
            }
        }
        entries.clock += 1;
        let now = entries.clock;
        entries.map.insert(key, (Arc::clone(&grammar), now));
        Ok(grammar)
    }

    /// The number of grammars kept.
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .map
            .len()
    }

    /// Whether no grammar is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Two independent 64-bit hashes of the canonical inputs.
fn cache_key(tools: &[GrammarTool<'_>], dialect: WireFormat, options: &GrammarOptions) -> u128 {
    let hash = |seed: u64| {
        let mut h = DefaultHasher::new();
        seed.hash(&mut h);
        dialect.hash(&mut h);
        options.hash(&mut h);
        tools.len().hash(&mut h);
        for tool in tools {
            tool.name.hash(&mut h);
            hash_object(tool.input_schema, &mut h);
        }
        h.finish()
    };
    (u128::from(hash(0x9e37_79b9)) << 64) | u128::from(hash(0x85eb_ca6b))
}

fn hash_object(obj: &serde_json::Map<String, Value>, h: &mut DefaultHasher) {
    obj.len().hash(h);
    for (k, v) in obj {
        k.hash(h);
        hash_value(v, h);
    }
}

fn hash_value(v: &Value, h: &mut DefaultHasher) {
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Number(n) => (2u8, n.to_string()).hash(h),
        Value::String(s) => (3u8, s).hash(h),
        Value::Array(items) => {
            (4u8, items.len()).hash(h);
            for item in items {
                hash_value(item, h);
            }
        }
        Value::Object(obj) => {
            5u8.hash(h);
            hash_object(obj, h);
        }
    }
}
