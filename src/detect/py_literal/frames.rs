//! The pythonic converter's stack of open containers (the argument list,
//! lists, tuples, dicts): opening, closing and entries.

use super::{ArgsConv, Frame, Kind, MAX_DEPTH, Role, St, Syntax, is_ws};

impl ArgsConv {
    #[inline]
    pub(super) fn top(&self) -> Frame {
        *self
            .frames
            .last()
            .expect("a frame is open until the state is Done")
    }

    #[inline]
    pub(super) fn closer(&self) -> u8 {
        match (self.top().kind, self.syntax) {
            (Kind::Args, Syntax::Python) | (Kind::Tuple, _) => b')',
            (Kind::Args, Syntax::Gemma) | (Kind::Dict, _) => b'}',
            (Kind::List, _) => b']',
        }
    }

    /// Writes the separator before a new entry of the innermost container.
    #[inline]
    pub(super) fn begin_entry(&mut self) {
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        if frame.count > 0 {
            self.json.push(',');
        } else if frame.kind == Kind::Args {
            self.json.push('{');
        }
        frame.count += 1;
    }

    /// Closes the innermost container.
    #[inline]
    pub(super) fn close(&mut self) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        match frame.kind {
            Kind::Args if frame.count == 0 => self.json.push_str("{}"),
            Kind::Args | Kind::Dict => self.json.push('}'),
            Kind::List | Kind::Tuple => self.json.push(']'),
        }
        self.state = if self.frames.is_empty() {
            St::Done
        } else {
            St::CommaOrClose
        };
    }

    #[inline]
    pub(super) fn open(&mut self, kind: Kind) -> Result<(), String> {
        if self.role == Role::Key {
            return Err("a container cannot be a key".to_owned());
        }
        if self.frames.len() >= MAX_DEPTH {
            return Err(format!("values nest deeper than {MAX_DEPTH}"));
        }
        self.json.push(if kind == Kind::Dict { '{' } else { '[' });
        self.frames.push(Frame { kind, count: 0 });
        self.state = if kind == Kind::Dict {
            St::KeyOrClose
        } else {
            St::ElemOrClose
        };
        Ok(())
    }

    /// Where a key or an element may begin: whitespace is skipped, the
    /// container's closer closes it (`true`: `b` is consumed).
    #[inline]
    pub(super) fn skip_or_close(&mut self, b: u8) -> bool {
        if is_ws(b) {
            true
        } else if b == self.closer() {
            self.close();
            true
        } else {
            false
        }
    }
}
