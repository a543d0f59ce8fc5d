//! `docs/decisions.md` keeps an index by area: every decision is in it once, and it names none
//! that does not exist, so that a new decision cannot be left out of it.

use std::collections::BTreeMap;

fn decisions_md() -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/decisions.md"))
        .unwrap_or_default()
}

/// The numbers of the entries: lines `N. ` at the start.
fn entries(text: &str) -> Vec<u32> {
    text.lines()
        .filter_map(|line| line.split_once(". ")?.0.parse().ok())
        .collect()
}

/// The index's rows: `| area | 1, 2, 3 |`, past its header.
fn indexed(text: &str) -> BTreeMap<u32, Vec<String>> {
    let mut seen: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| Area")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if let [area, numbers] = cells.as_slice() {
            for n in numbers.split(',').filter_map(|n| n.trim().parse().ok()) {
                seen.entry(n).or_default().push((*area).to_owned());
            }
        }
    }
    seen
}

#[test]
fn every_decision_is_indexed_once_under_its_area_and_the_index_names_no_other() {
    let text = decisions_md();
    let entries = entries(&text);
    assert!(entries.len() > 150, "as entradas de docs/decisions.md");
    let indexed = indexed(&text);
    let replaced: Vec<u32> = vec![21, 46, 48];
    for n in &entries {
        match indexed.get(n) {
            None if replaced.contains(n) => {}
            None => panic!("a decisão {n} não está no índice por área"),
            Some(areas) => assert_eq!(areas.len(), 1, "a decisão {n} está em mais de uma área: {areas:?}"),
        }
    }
    for n in indexed.keys() {
        assert!(entries.contains(n), "o índice cita a decisão {n}, que não existe");
    }
}
