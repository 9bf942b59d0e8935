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
            (Kind::Args, Syntax::Gemma) | (Kind::Dict | Kind::Set, _) => b'}',
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
            // `{}` is the empty dict (its brace is still undecided).
            Kind::Dict if self.brace.take().is_some() => self.json.push_str("{}"),
            Kind::Args | Kind::Dict => self.json.push('}'),
            Kind::List | Kind::Tuple | Kind::Set => self.json.push(']'),
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
        if self.top().kind == Kind::Set {
            return Err("a set holds only scalars and strings".to_owned());
        }
        if kind != Kind::Dict {
            self.json.push('[');
        } else if self.syntax == Syntax::Python {
            // A dict or a set: the first entry decides.
            self.brace = Some(self.json.len());
            self.key_scalar = false;
        } else {
            self.json.push('{');
        }
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

    /// The undecided `{` holds one element, not a key: a set, written as an
    /// array whose first element is the key as written (a scalar unquoted).
    #[cold]
    #[inline(never)]
    pub(super) fn become_set(&mut self) {
        let Some(at) = self.brace.take() else {
            return;
        };
        let first = self.json.split_off(at.min(self.json.len()));
        self.json.push('[');
        let element = match first.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            Some(scalar) if self.key_scalar => scalar,
            _ => first.as_str(),
        };
        self.json.push_str(element);
        if let Some(frame) = self.frames.last_mut() {
            frame.kind = Kind::Set;
        }
    }
}
