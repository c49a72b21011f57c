//! [`Name`]: a string that keeps a short text in place. Names in rules are short (`str`,
//! `Rating`, `IronLance`), and a large project holds hundreds of thousands of them: as `String`s
//! each is a separate allocation of at least 32 bytes beside its 24. A `Name` is 24 bytes, and one
//! of up to [`Name::INLINE`] bytes allocates nothing. Reads as `&str`; serialises as a string.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// A string kept inline when short (see the module doc).
#[derive(Clone)]
pub struct Name(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; Name::INLINE] },
    Heap(Box<str>),
}

impl Name {
    /// The longest text kept inline, in bytes.
    pub const INLINE: usize = 22;

    pub fn new(text: &str) -> Name {
        let mut bytes = [0u8; Name::INLINE];
        match bytes.get_mut(..text.len()) {
            Some(slot) => {
                slot.copy_from_slice(text.as_bytes());
                Name(Repr::Inline { len: text.len() as u8, bytes })
            }
            None => Name(Repr::Heap(text.into())),
        }
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            // The bytes were copied from a `&str` whole, so they are UTF-8: the check only
            // confirms it (a name is a few bytes).
            Repr::Inline { len, bytes } => {
                bytes.get(..usize::from(*len)).and_then(|b| std::str::from_utf8(b).ok()).unwrap_or_default()
            }
            Repr::Heap(s) => s,
        }
    }

    /// The text's bytes, unchecked: what equality and order compare (the same answers as
    /// comparing the texts, a `str` ordering by its bytes, without confirming again that the
    /// inline bytes are UTF-8).
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, bytes } => bytes.get(..usize::from(*len)).unwrap_or_default(),
            Repr::Heap(s) => s.as_bytes(),
        }
    }
}

impl Default for Name {
    fn default() -> Name {
        Name::new("")
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name::new(s)
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        if s.len() <= Name::INLINE {
            Name::new(&s)
        } else {
            Name(Repr::Heap(s.into_boxed_str()))
        }
    }
}

impl From<Name> for String {
    fn from(n: Name) -> String {
        n.as_str().to_string()
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Name {}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

/// Hashes as its text does, so a `Name` and a `&str` find the same entry.
impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl serde::Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Name, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Name, E> {
                Ok(Name::new(s))
            }
            fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Name, E> {
                Ok(Name::from(s))
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn a_name_reads_back_what_it_was_given_at_every_length() {
        let text: String = "héllo, wörld ".repeat(4);
        for end in (0..=text.len()).filter(|i| text.is_char_boundary(*i)) {
            let s = text.get(..end).unwrap_or_default();
            let n = Name::new(s);
            assert_eq!(n.as_str(), s);
            assert_eq!(Name::from(s.to_string()), n);
            assert_eq!(matches!(n.0, Repr::Inline { .. }), s.len() <= Name::INLINE, "{s:?}");
        }
        assert_eq!(std::mem::size_of::<Name>(), std::mem::size_of::<String>());
    }

    #[test]
    fn a_name_orders_hashes_and_serialises_as_its_text() {
        let long = "a".repeat(40);
        let names = ["Rating", "str", "", long.as_str()];
        let mut sorted: Vec<Name> = names.iter().map(|s| Name::new(s)).collect();
        sorted.sort();
        let mut strs: Vec<&str> = names.to_vec();
        strs.sort();
        assert_eq!(sorted.iter().map(|n| n.as_str()).collect::<Vec<_>>(), strs);
        let map: HashMap<Name, usize> = names.iter().enumerate().map(|(i, s)| (Name::new(s), i)).collect();
        assert_eq!(map.get("Rating"), Some(&0));
        assert_eq!(map.get(long.as_str()), Some(&3));
        let json = serde_json::to_string(&sorted).unwrap_or_default();
        assert_eq!(json, serde_json::to_string(&strs).unwrap_or_default());
        let back: Vec<Name> = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back, sorted);
    }
}
