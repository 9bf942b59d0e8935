//! `Budgeted`: prompt text written within a budget of work. Every byte
//! written and every schema node visited costs one unit, charged before the
//! work is done, so that a schema whose `$ref`s expand without end is refused
//! after as much work as the budget allows, not after the expansion.

use std::io;

use serde_json::Value;

use super::calls::escape_into;

/// The budget ran out: the text being written is abandoned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Spent;

/// Text written within a budget: markup as it is, data escaped
/// ([`escape_into`]), every byte and every [`visit`](Self::visit) charged.
#[derive(Debug)]
pub(super) struct Budgeted {
    out: String,
    /// Units left.
    left: usize,
    /// Units spent since the start.
    spent: usize,
}

impl Budgeted {
    /// An empty text with `left` units to spend.
    pub(super) fn new(left: usize) -> Self {
        Self {
            out: String::new(),
            left,
            spent: 0,
        }
    }

    /// Spends `units`, or fails (spending nothing) when fewer are left.
    pub(super) fn spend(&mut self, units: usize) -> Result<(), Spent> {
        self.left = self.left.checked_sub(units).ok_or(Spent)?;
        self.spent += units;
        Ok(())
    }

    /// One schema node visited.
    pub(super) fn visit(&mut self) -> Result<(), Spent> {
        self.spend(1)
    }

    /// Writes the prompt's own text.
    pub(super) fn markup(&mut self, text: &str) -> Result<(), Spent> {
        self.spend(text.len())?;
        self.out.push_str(text);
        Ok(())
    }

    /// Writes data (a name, a description, a value) escaped: its length is
    /// charged before it is copied, its escapes after.
    pub(super) fn text(&mut self, text: &str) -> Result<(), Spent> {
        self.spend(text.len())?;
        let before = self.out.len();
        escape_into(text, &mut self.out);
        let grown = self.out.len() - before - text.len();
        self.spend(grown).inspect_err(|_| self.out.truncate(before))
    }

    /// Writes a JSON value as JSON text, escaped; serializing stops where the
    /// budget does.
    pub(super) fn json(&mut self, value: &Value) -> Result<(), Spent> {
        let mut sink = JsonSink {
            budget: self,
            bytes: Vec::new(),
        };
        let written = serde_json::to_writer(&mut sink, value);
        let bytes = std::mem::take(&mut sink.bytes);
        written.map_err(|_| Spent)?;
        // JSON text is UTF-8, and the escapes replace ASCII bytes by ASCII.
        self.out.push_str(&String::from_utf8_lossy(&bytes));
        Ok(())
    }

    /// Runs `write` with at most `cap` of the units left: the units it spent,
    /// or, when it ran out, what stopped it. What a failed `write` wrote is
    /// taken back; its units stay spent.
    pub(super) fn within(
        &mut self,
        cap: usize,
        write: impl FnOnce(&mut Self) -> Result<(), Spent>,
    ) -> Result<usize, Stop> {
        let (left, spent, mark) = (self.left, self.spent, self.out.len());
        let capped = cap < left;
        self.left = left.min(cap);
        let result = write(self);
        let used = self.spent - spent;
        self.left = left - used.min(left);
        match result {
            Ok(()) => Ok(used),
            Err(Spent) => {
                self.out.truncate(mark);
                Err(if capped { Stop::Cap } else { Stop::Budget })
            }
        }
    }

    /// The text's length so far.
    pub(super) fn len(&self) -> usize {
        self.out.len()
    }

    /// Takes back the text written after `len` bytes.
    pub(super) fn truncate(&mut self, len: usize) {
        self.out.truncate(len);
    }

    /// Units spent since the start.
    pub(super) fn spent(&self) -> usize {
        self.spent
    }

    /// The text.
    pub(super) fn into_text(self) -> String {
        self.out
    }
}

/// What stopped a [`Budgeted::within`] that ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// Its own cap.
    Cap,
    /// The budget's units left, fewer than its cap.
    Budget,
}

/// Where `serde_json` writes a value for [`Budgeted::json`]: each byte is
/// charged (escapes included) as it comes, and an empty budget stops the
/// serializer with an error.
struct JsonSink<'b> {
    budget: &'b mut Budgeted,
    bytes: Vec<u8>,
}

impl io::Write for JsonSink<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let out_of_budget = || io::Error::other("the prompt's budget ran out");
        self.budget.spend(buf.len()).map_err(|_| out_of_budget())?;
        for &b in buf {
            let escaped: &[u8] = match b {
                b'&' => b"&amp;",
                b'<' => b"&lt;",
                b'>' => b"&gt;",
                _ => {
                    self.bytes.push(b);
                    continue;
                }
            };
            self.budget
                .spend(escaped.len() - 1)
                .map_err(|_| out_of_budget())?;
            self.bytes.extend_from_slice(escaped);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
