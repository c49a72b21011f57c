//! [`Atom`]: an interned name. A battle copies its units for every turn it might undo and every
//! line an AI plays ahead, and asks the rules about them by name; as `String`s each copy
//! allocated and each question compared bytes. An `Atom` is a pointer to the one copy of its
//! text: copying it is free, two are equal when they are the same pointer, and it reads as
//! `&str` without a lookup.
//!
//! Hashing and ordering go by the text, as a `String`'s do, so maps and sorted lists keyed by
//! atoms iterate in the order they did (battle logs stay byte-identical). The texts live for
//! the process: an atom is made from a loadout, a unit or a log, whose names are the rules' own
//! (a bounded vocabulary), never from every string a user types.

use std::borrow::Borrow;
use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::{Mutex, OnceLock};

/// An interned name (see the module doc).
#[derive(Clone, Copy)]
pub struct Atom(&'static str);

fn table() -> &'static Mutex<HashSet<&'static str>> {
    static TABLE: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashSet::new()))
}

impl Atom {
    /// The atom of `text`: the same for the same text, wherever it is made.
    pub fn new(text: &str) -> Atom {
        // A poisoned lock still holds a consistent set: each insert is one call.
        let mut table = table().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(kept) = table.get(text) {
            return Atom(kept);
        }
        let kept: &'static str = Box::leak(text.to_owned().into_boxed_str());
        table.insert(kept);
        Atom(kept)
    }

    /// The atom of `text` where one was made, without making one: for names a user sends (a
    /// request to `oc play`), which name something of the rules only if the rules' own atoms
    /// hold them, and must not grow the table.
    pub fn existing(text: &str) -> Option<Atom> {
        let table = table().lock().unwrap_or_else(|e| e.into_inner());
        table.get(text).map(|kept| Atom(kept))
    }

    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

impl PartialEq for Atom {
    fn eq(&self, other: &Atom) -> bool {
        // Interned: one text, one pointer.
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Atom {}

impl Hash for Atom {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl PartialOrd for Atom {
    fn partial_cmp(&self, other: &Atom) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Atom {
    fn cmp(&self, other: &Atom) -> std::cmp::Ordering {
        if self == other {
            std::cmp::Ordering::Equal
        } else {
            self.0.cmp(other.0)
        }
    }
}

impl Default for Atom {
    fn default() -> Atom {
        Atom::new("")
    }
}

impl Deref for Atom {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl AsRef<str> for Atom {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl Borrow<str> for Atom {
    fn borrow(&self) -> &str {
        self.0
    }
}

impl From<&str> for Atom {
    fn from(s: &str) -> Atom {
        Atom::new(s)
    }
}

impl From<String> for Atom {
    fn from(s: String) -> Atom {
        Atom::new(&s)
    }
}

impl From<&String> for Atom {
    fn from(s: &String) -> Atom {
        Atom::new(s)
    }
}

impl From<Atom> for String {
    fn from(a: Atom) -> String {
        a.0.to_string()
    }
}

impl PartialEq<str> for Atom {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Atom {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for Atom {
    fn eq(&self, other: &String) -> bool {
        self.0 == other
    }
}

impl PartialEq<Atom> for str {
    fn eq(&self, other: &Atom) -> bool {
        self == other.0
    }
}

impl PartialEq<Atom> for &str {
    fn eq(&self, other: &Atom) -> bool {
        *self == other.0
    }
}

impl PartialEq<Atom> for String {
    fn eq(&self, other: &Atom) -> bool {
        self == other.0
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.0, f)
    }
}

impl fmt::Debug for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}

impl serde::Serialize for Atom {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Atom {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Atom, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Atom;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a name")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Atom, E> {
                Ok(Atom::new(v))
            }
        }
        d.deserialize_str(Visit)
    }
}

#[cfg(test)]
mod tests {
    use super::Atom;

    #[test]
    fn one_text_one_atom_ordered_and_hashed_as_its_text() -> Result<(), serde_json::Error> {
        let a = Atom::new("IronLance");
        let b = Atom::new(&String::from("IronLance"));
        assert_eq!(a, b);
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        assert_ne!(a, Atom::new("IronSword"));
        assert!(Atom::new("Axe") < Atom::new("Bow") && Atom::new("b") > Atom::new("B"));
        let mut names = vec![Atom::new("Soldier"), Atom::new("Archer"), Atom::new("Myrmidon")];
        names.sort();
        assert_eq!(names, ["Archer", "Myrmidon", "Soldier"].map(Atom::new));
        let set: std::collections::HashSet<Atom> = names.iter().copied().collect();
        assert!(set.contains("Archer"), "looked up by text");
        assert_eq!(a, "IronLance");
        assert_eq!(format!("{a} {a:?}"), "IronLance \"IronLance\"");
        let json = serde_json::to_string(&vec![a])?;
        assert_eq!(json, "[\"IronLance\"]");
        let back: Vec<Atom> = serde_json::from_str(&json)?;
        assert_eq!(back, vec![a]);
        Ok(())
    }
}
