//! Keyset pages: every list reads one row more than its page, and that row says whether a next
//! page exists, which starts after the last row kept.

/// Keeps the first `limit` of `rows` (read with `limit + 1`) and answers the cursor of the next
/// page, `cursor` of the last row kept, or `None` on the last page.
pub fn keep_page<T, C>(rows: &mut Vec<T>, limit: i64, cursor: impl FnOnce(&T) -> C) -> Option<C> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    if rows.len() <= limit {
        return None;
    }
    rows.truncate(limit);
    rows.last().map(cursor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_beyond_the_page_is_dropped_and_names_the_next_page_after_the_last_kept() {
        let mut rows = vec![10, 20, 30];
        assert_eq!(keep_page(&mut rows, 2, |last| *last), Some(20));
        assert_eq!(rows, vec![10, 20]);
        let mut last_page = vec![10, 20];
        assert_eq!(keep_page(&mut last_page, 2, |last| *last), None);
        assert_eq!(last_page, vec![10, 20]);
        let mut empty: Vec<i32> = Vec::new();
        assert_eq!(keep_page(&mut empty, 0, |last| *last), None);
        let mut one = vec![1];
        assert_eq!(keep_page(&mut one, 0, |last| *last), None);
        assert!(one.is_empty());
    }
}
