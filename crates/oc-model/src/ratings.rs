//! [`Ratings`]: a class's value for each stat, by stat name. A class rates a handful of stats, so
//! this is a sorted list, not a tree: a `BTreeMap` gives each class a node of eleven slots, and a
//! project of thousands of classes pays for the empty ones. Serialises as a map, in name order,
//! as the `BTreeMap` it replaces did.

use std::fmt;

use crate::{Name, Value};

/// Stat name -> value, in name order, each name once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ratings(Vec<(Name, Value)>);

impl Ratings {
    pub fn new() -> Ratings {
        Ratings(Vec::new())
    }

    /// Room for `n` stats.
    pub fn with_capacity(n: usize) -> Ratings {
        Ratings(Vec::with_capacity(n))
    }

    /// The value rated for `stat`.
    pub fn get(&self, stat: &str) -> Option<&Value> {
        self.0.binary_search_by(|(n, _)| n.as_bytes().cmp(stat.as_bytes())).ok().and_then(|i| self.0.get(i)).map(|(_, v)| v)
    }

    /// Rates `stat` (replacing what it was rated before).
    pub fn insert(&mut self, stat: impl Into<Name>, value: Value) {
        let stat = stat.into();
        match self.0.binary_search_by(|(n, _)| n.as_bytes().cmp(stat.as_bytes())) {
            Ok(i) => {
                if let Some(slot) = self.0.get_mut(i) {
                    slot.1 = value;
                }
            }
            Err(i) => self.0.insert(i, (stat, value)),
        }
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// (stat, value) in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&Name, &Value)> {
        self.0.iter().map(|(n, v)| (n, v))
    }

    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.0.iter().map(|(_, v)| v)
    }
}

impl<N: Into<Name>> FromIterator<(N, Value)> for Ratings {
    fn from_iter<I: IntoIterator<Item = (N, Value)>>(entries: I) -> Ratings {
        let mut r = Ratings::new();
        for (n, v) in entries {
            r.insert(n, v);
        }
        r
    }
}

impl serde::Serialize for Ratings {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> serde::Deserialize<'de> for Ratings {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Ratings, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Ratings;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of stat names to values")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Ratings, A::Error> {
                let mut r = Ratings(Vec::with_capacity(map.size_hint().unwrap_or(0).min(64)));
                while let Some((k, v)) = map.next_entry::<Name, Value>()? {
                    r.insert(k, v);
                }
                Ok(r)
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn step(index: u32) -> Value {
        Value::Step { scale: Name::new("Rating"), index }
    }

    #[test]
    fn ratings_read_write_and_serialise_as_the_sorted_map_they_replace() {
        let entries = [("str", step(3)), ("mag", step(1)), ("spd", Value::Int(7)), ("def", step(0)), ("mag", step(2))];
        let ratings: Ratings = entries.iter().cloned().collect();
        let tree: BTreeMap<String, Value> = entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        assert_eq!(ratings.len(), tree.len());
        for (k, v) in &tree {
            assert_eq!(ratings.get(k), Some(v));
        }
        assert_eq!(ratings.get("res"), None);
        assert_eq!(
            ratings.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            tree.keys().map(String::as_str).collect::<Vec<_>>()
        );
        let json = serde_json::to_string(&ratings).unwrap_or_default();
        assert_eq!(json, serde_json::to_string(&tree).unwrap_or_default());
        let back: Ratings = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back, ratings);
    }
}
