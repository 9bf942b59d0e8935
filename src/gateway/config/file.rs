//! The shapes of the two configuration files as `serde` reads them: `TomlFile`
//! (`toolrouter.toml`, unknown keys refused), `JsonFile` (`mcpServers` JSON),
//! `ServerTable` and `ServerEntry`, and the value types whose errors say what a
//! key needs (`expected a number of seconds`, `expected true or false`, …).
//!
//! Each `expecting` text is the end of the error a wrong type gives:
//! `read.rs` turns serde's `invalid type: …, expected X` into `expected X`.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::time::Duration;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// `toolrouter.toml`: the servers plus toolrouter's own settings.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TomlFile {
    #[serde(rename = "mcpServers", default)]
    pub(super) mcp_servers: Deferred,
    #[serde(default)]
    pub(super) servers: Deferred,
    pub(super) workspace: Option<String>,
    pub(super) builtins: Option<List<ToolName>>,
    pub(super) timeout_secs: Option<Seconds>,
    pub(super) connect_timeout_secs: Option<Seconds>,
    pub(super) ping_interval_secs: Option<Seconds>,
    pub(super) ping_timeout_secs: Option<Seconds>,
    pub(super) namespace: Option<Table<NamespaceTable>>,
    pub(super) limits: Option<Table<LimitsTable>>,
    pub(super) restart: Option<Table<RestartTable>>,
}

/// An `mcpServers` JSON file. It is shared with other programs (Claude Desktop,
/// Cursor, VS Code), whose keys are theirs: only the servers are read.
#[derive(Debug, Deserialize)]
pub(super) struct JsonFile {
    #[serde(rename = "mcpServers", default)]
    pub(super) mcp_servers: Deferred,
    #[serde(default)]
    pub(super) servers: Deferred,
}

/// `[namespace]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NamespaceTable {
    pub(super) separator: Option<String>,
    pub(super) prefix: Option<String>,
}

/// `[limits]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LimitsTable {
    pub(super) max_description_chars: Option<Count>,
    pub(super) max_tools_per_upstream: Option<Count>,
}

/// `[restart]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RestartTable {
    pub(super) initial_backoff_ms: Option<Count>,
    pub(super) max_backoff_ms: Option<Count>,
}

/// One server's entry, in both formats. JSON entries lose the keys this does
/// not know before they are read (`read.rs`), so the refusal of unknown keys
/// only ever reaches TOML.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ServerEntry {
    #[serde(rename = "type")]
    pub(super) kind: Option<String>,
    pub(super) command: Option<String>,
    pub(super) args: Option<List<String>>,
    pub(super) env: Option<StringMap>,
    pub(super) cwd: Option<String>,
    pub(super) url: Option<String>,
    pub(super) headers: Option<StringMap>,
    pub(super) bearer_token: Option<String>,
    pub(super) bearer_token_env: Option<String>,
    pub(super) timeout_secs: Option<Seconds>,
    pub(super) connect_timeout_secs: Option<Seconds>,
    pub(super) ping_interval_secs: Option<Seconds>,
    pub(super) prefix: Option<String>,
    pub(super) disabled: Option<Flag>,
}

/// A table (an object, in JSON) read as `T`. Derived structs would also take
/// an array of their values in field order; a configuration key never does.
#[derive(Debug)]
pub(super) struct Table<T>(pub(super) T);

/// What a table of this type is called in errors.
pub(super) trait TableKind {
    /// `a table`, `an object …`.
    const EXPECTING: &'static str;
}

impl TableKind for TomlFile {
    const EXPECTING: &'static str = "an object";
}

impl TableKind for JsonFile {
    const EXPECTING: &'static str = "an object";
}

impl TableKind for NamespaceTable {
    const EXPECTING: &'static str = "a table";
}

impl TableKind for LimitsTable {
    const EXPECTING: &'static str = "a table";
}

impl TableKind for RestartTable {
    const EXPECTING: &'static str = "a table";
}

impl TableKind for ServerEntry {
    const EXPECTING: &'static str = "an object with `command` or `url`";
}

impl<'de, T: Deserialize<'de> + TableKind> Deserialize<'de> for Table<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TableVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + TableKind> Visitor<'de> for TableVisitor<T> {
            type Value = Table<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(T::EXPECTING)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Table<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Table)
            }
        }
        deserializer.deserialize_map(TableVisitor(PhantomData))
    }
}

/// A value kept as it is until the reader knows which of two keys to use
/// (`mcpServers` or VS Code's `servers`); `Present` even when it is `null`.
#[derive(Debug, Default)]
pub(super) enum Deferred {
    /// The key is not in the file.
    #[default]
    Absent,
    /// The key's value.
    Present(Value),
}

impl<'de> Deserialize<'de> for Deferred {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Deferred::Present)
    }
}

/// The servers by name, in file order; `null` is none.
#[derive(Debug, Default)]
pub(super) struct ServerTable(pub(super) Vec<(String, Value)>);

impl<'de> Deserialize<'de> for ServerTable {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TableVisitor;
        impl<'de> Visitor<'de> for TableVisitor {
            type Value = ServerTable;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table of servers by name")
            }
            fn visit_unit<E: de::Error>(self) -> Result<ServerTable, E> {
                Ok(ServerTable::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ServerTable, A::Error> {
                let mut servers = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(entry) = map.next_entry()? {
                    servers.push(entry);
                }
                Ok(ServerTable(servers))
            }
        }
        deserializer.deserialize_any(TableVisitor)
    }
}

/// An array whose items are `T` (`args`, `builtins`).
#[derive(Debug)]
pub(super) struct List<T>(pub(super) Vec<T>);

impl<'de, T: Deserialize<'de> + Expecting> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ListVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Expecting> Visitor<'de> for ListVisitor<T> {
            type Value = List<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(T::LIST)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<List<T>, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(List(items))
            }
        }
        deserializer.deserialize_seq(ListVisitor(PhantomData))
    }
}

/// What an array of this item type is called in errors.
pub(super) trait Expecting {
    /// `an array of …`.
    const LIST: &'static str;
}

impl Expecting for String {
    const LIST: &'static str = "an array of strings";
}

/// An item of `builtins`.
#[derive(Debug)]
pub(super) struct ToolName(pub(super) String);

impl Expecting for ToolName {
    const LIST: &'static str = "an array of tool names";
}

impl<'de> Deserialize<'de> for ToolName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl Visitor<'_> for NameVisitor {
            type Value = ToolName;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<ToolName, E> {
                Ok(ToolName(name.to_owned()))
            }
        }
        deserializer.deserialize_str(NameVisitor)
    }
}

/// Names to strings (`env`, `headers`).
#[derive(Debug, Default)]
pub(super) struct StringMap(pub(super) BTreeMap<String, String>);

impl<'de> Deserialize<'de> for StringMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor;
        impl<'de> Visitor<'de> for MapVisitor {
            type Value = StringMap;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of strings")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StringMap, A::Error> {
                let mut strings = BTreeMap::new();
                while let Some((name, value)) = map.next_entry()? {
                    strings.insert(name, value);
                }
                Ok(StringMap(strings))
            }
        }
        deserializer.deserialize_map(MapVisitor)
    }
}

/// `true` or `false`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Flag(pub(super) bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FlagVisitor;
        impl Visitor<'_> for FlagVisitor {
            type Value = Flag;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true or false")
            }
            fn visit_bool<E: de::Error>(self, value: bool) -> Result<Flag, E> {
                Ok(Flag(value))
            }
        }
        deserializer.deserialize_bool(FlagVisitor)
    }
}

/// A number of seconds above 0 and at most a day (`timeout_secs`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Seconds(pub(super) Duration);

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SecondsVisitor;
        impl Visitor<'_> for SecondsVisitor {
            type Value = Seconds;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of seconds")
            }
            fn visit_u64<E: de::Error>(self, secs: u64) -> Result<Seconds, E> {
                self.visit_f64(secs as f64)
            }
            fn visit_i64<E: de::Error>(self, secs: i64) -> Result<Seconds, E> {
                self.visit_f64(secs as f64)
            }
            fn visit_f64<E: de::Error>(self, secs: f64) -> Result<Seconds, E> {
                if secs > 0.0 && secs <= 86_400.0 {
                    Ok(Seconds(Duration::from_secs_f64(secs)))
                } else {
                    Err(E::custom(
                        "expected a number of seconds above 0 and at most 86400",
                    ))
                }
            }
        }
        deserializer.deserialize_any(SecondsVisitor)
    }
}

/// A positive whole number (limits, backoff milliseconds).
#[derive(Debug, Clone, Copy)]
pub(super) struct Count(pub(super) usize);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        const PROBLEM: &str = "expected a positive whole number";
        struct CountVisitor;
        impl Visitor<'_> for CountVisitor {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a positive whole number")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Count, E> {
                match usize::try_from(n) {
                    Ok(n) if n > 0 => Ok(Count(n)),
                    _ => Err(E::custom(PROBLEM)),
                }
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Count, E> {
                match u64::try_from(n) {
                    Ok(n) => self.visit_u64(n),
                    Err(_) => Err(E::custom(PROBLEM)),
                }
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Count, E> {
                Err(E::custom(PROBLEM))
            }
        }
        deserializer.deserialize_any(CountVisitor)
    }
}
