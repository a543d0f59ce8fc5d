//! An answer's text rewritten only along the paths its changes reach: every other member is copied
//! as the handler wrote it, never parsed into a value. Route 7's document is 3-4 KiB and its
//! changed members are two strings; parsing and writing the whole of it again cost a third of the
//! route's throughput for callers of an older version (docs/performance.md).

use crate::changes::Change;
use crate::paths::{Step, undo_at};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::fmt;

/// One change still to apply below the value being rewritten, and the rest of its way there.
pub(crate) type Pending<'p> = (&'static dyn Change, &'p [Step]);

/// Writes `raw` (one JSON value) into `out` with every pending change applied, in the order given
/// (newest first). `None` when `raw` is not JSON.
pub(crate) fn rewrite(raw: &str, pending: &[Pending<'_>], out: &mut String) -> Option<()> {
    if pending.is_empty() {
        out.push_str(raw);
        return Some(());
    }
    // A change that applies to this value itself: the value (small: a member or a schema's
    // instance) is parsed, every change below it applied there, in order.
    if pending.iter().any(|(_, rest)| rest.is_empty()) {
        let mut value: Value = serde_json::from_str(raw).ok()?;
        for (change, rest) in pending {
            undo_at(&mut value, *change, rest);
        }
        out.push_str(&serde_json::to_string(&value).ok()?);
        return Some(());
    }
    let trimmed = raw.trim_start();
    if trimmed.starts_with('{') && pending.iter().any(|(_, rest)| matches!(rest[0], Step::Member(_))) {
        let Members(members) = serde_json::from_str(raw).ok()?;
        out.push('{');
        let mut first = true;
        for (key, inner) in &members {
            let below: Vec<Pending<'_>> = pending
                .iter()
                .filter_map(|(change, rest)| match &rest[0] {
                    Step::Member(member) if member == key => Some((*change, &rest[1..])),
                    _ => None,
                })
                .collect();
            // A member the older version did not have: left out, never parsed.
            if below
                .iter()
                .any(|(change, rest)| rest.is_empty() && change.adds_members())
            {
                continue;
            }
            if !first {
                out.push(',');
            }
            first = false;
            // Borrowed keys hold no escapes: written back as they were read.
            out.push('"');
            out.push_str(key);
            out.push_str("\":");
            rewrite(inner.get(), &below, out)?;
        }
        out.push('}');
        return Some(());
    }
    if trimmed.starts_with('[') && pending.iter().any(|(_, rest)| rest[0] == Step::EachItem) {
        let Items(items) = serde_json::from_str(raw).ok()?;
        let below: Vec<Pending<'_>> = pending
            .iter()
            .filter(|(_, rest)| rest[0] == Step::EachItem)
            .map(|(change, rest)| (*change, &rest[1..]))
            .collect();
        out.push('[');
        for (index, item) in items.iter().enumerate() {
            if index > 0 {
                out.push(',');
            }
            rewrite(item.get(), &below, out)?;
        }
        out.push(']');
        return Some(());
    }
    // Not the object or array the paths go through (`null`, say): nothing below to change. A
    // value that is not JSON at all is refused by the first parse above it, or here.
    serde_json::from_str::<&RawValue>(raw).ok()?;
    out.push_str(raw);
    Some(())
}

/// An object's members in their order, each value as its text. A key with an escape cannot be
/// borrowed and fails the read (the caller's `None`); no answer of ours has one.
struct Members<'a>(Vec<(&'a str, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("um objeto JSON")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::with_capacity(map.size_hint().unwrap_or(8));
                while let Some(entry) = map.next_entry::<&'de str, &'de RawValue>()? {
                    members.push(entry);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

/// An array's items, each as its text.
struct Items<'a>(Vec<&'a RawValue>);

impl<'de> Deserialize<'de> for Items<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ItemsVisitor;
        impl<'de> Visitor<'de> for ItemsVisitor {
            type Value = Items<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("uma lista JSON")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(8));
                while let Some(item) = seq.next_element::<&'de RawValue>()? {
                    items.push(item);
                }
                Ok(Items(items))
            }
        }
        deserializer.deserialize_seq(ItemsVisitor)
    }
}
