//! Hand-written statements kept prepared per connection, like the query builder's.
//!
//! diesel caches the query builder's statements by their SQL, but never `sql_query`'s, whose
//! text may be built at run time. A statement with no cache entry costs an extra round trip to
//! prepare, its parse and plan on every run, and while it is being prepared it holds the
//! connection's statement-cache lock, so that statements pipelined behind it wait their turn.
//! The SQL here is a constant and every value a bound parameter, so the cache stays bounded.

use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId, SqlQuery};
use diesel::result::QueryResult;

/// A constant statement with its binds, prepared once per connection.
pub(crate) struct KeepPrepared<Q>(Q);

/// `diesel::sql_query(sql)` with `bind` applied, kept prepared.
pub(crate) fn prepared<Q>(sql: &'static str, bind: impl FnOnce(SqlQuery) -> Q) -> KeepPrepared<Q> {
    KeepPrepared(bind(diesel::sql_query(sql)))
}

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for KeepPrepared<Q> {
    fn walk_ast<'b>(&'b self, pass: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.walk_ast(pass)
    }

    fn is_safe_to_cache_prepared(&self, _backend: &Pg) -> QueryResult<bool> {
        Ok(true)
    }
}

impl<Q> QueryId for KeepPrepared<Q> {
    type QueryId = ();
    // Cached by its SQL text and bind types, as boxed query-builder statements are.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query> Query for KeepPrepared<Q> {
    type SqlType = Q::SqlType;
}

/// `sql` with each placeholder `$n` replaced by `values[n - 1]` (a statement replayed outside the
/// service: pgbench). `None` when a placeholder has no value or a value is never used, so that
/// a statement and its values cannot drift apart unnoticed.
pub(crate) fn with_placeholders(sql: &str, values: &[&str]) -> Option<String> {
    let mut used = vec![false; values.len()];
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let digits: String = rest[at + 1..].chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            out.push('$');
        } else {
            let n: usize = digits.parse().ok()?;
            let value = values.get(n.checked_sub(1)?)?;
            used[n - 1] = true;
            out.push_str(value);
        }
        rest = &rest[at + 1 + digits.len()..];
    }
    out.push_str(rest);
    used.iter().all(|u| *u).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::with_placeholders;

    #[test]
    fn every_placeholder_takes_its_value_and_every_value_is_used() {
        assert_eq!(
            with_placeholders(
                "SELECT $1, $10, $2 WHERE x = $1",
                &["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]
            ),
            None,
            "values 3 to 9 are never used"
        );
        let values = ["'x'", "2", "3", "4", "5", "6", "7", "8", "9", "'ten'"];
        let sql = "SELECT $1, $10, $2, $3, $4, $5, $6, $7, $8, $9, 'a$' WHERE x = $1";
        assert_eq!(
            with_placeholders(sql, &values).as_deref(),
            Some("SELECT 'x', 'ten', 2, 3, 4, 5, 6, 7, 8, 9, 'a$' WHERE x = 'x'")
        );
        assert_eq!(with_placeholders("SELECT $3", &["1", "2"]), None, "no value for $3");
        assert_eq!(with_placeholders("SELECT $0", &["1"]), None);
    }
}
