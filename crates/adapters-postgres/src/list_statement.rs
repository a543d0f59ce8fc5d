//! The parts of the proposal list's statement that the query builder cannot spell: a word of the
//! customer's name, the keyset cursor, and the page's size as a constant.
//!
//! The filters are a constant SQL text around bound values. `diesel::dsl::sql` would write the
//! same text, but diesel never keeps a statement holding a literal prepared (its text may be
//! built at run time), so every name search and every page after the first would be parsed and
//! planned from scratch. These fragments are safe to keep: their text never varies.
//!
//! The page's size is written into the text, from a handful of sizes ([`WithPageLimit`]): with
//! `LIMIT $n` PostgreSQL's generic plan assumes a tenth of the table is read and is never chosen,
//! so every page was planned again (a fifth of the list's CPU); with a constant it plans a
//! statement once per connection, as it does route 7's.

use diesel::expression::{AppearsOnTable, Expression, SelectableExpression, ValidGrouping, is_aggregate};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::result::QueryResult;
use diesel::sql_types::{Bool, Int8, Text, Timestamptz};
use domain::proposals::search::ListCursor;

/// The customer's name (the proposal's copy, `proposal_customers.nome_busca`, written by
/// `search_text`: lower case, accents and full-width forms folded; migration 000021) holds the
/// word: the word normalised the same way, then `\\`, `%` and `_` escaped, in that order, so that
/// a full-width `％` folded into `%` is escaped too.
#[derive(Debug, Clone)]
pub(crate) struct NameHasWord(pub String);

/// Strictly older than the cursor in the list's order (newest first): a row comparison, so the
/// `(criado_em DESC, id DESC)` indexes serve it as one range.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Older(pub ListCursor);

impl QueryFragment<Pg> for NameHasWord {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "proposal_customers.nome_busca LIKE '%' || \
             replace(replace(replace(search_text(",
        );
        out.push_bind_param::<Text, _>(&self.0)?;
        out.push_sql("), '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'");
        Ok(())
    }
}

impl QueryFragment<Pg> for Older {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("(proposals.criado_em, proposals.id) < (");
        out.push_bind_param::<Timestamptz, _>(&self.0.created_at)?;
        out.push_sql(", ");
        out.push_bind_param::<Int8, _>(&self.0.id)?;
        out.push_sql(")");
        Ok(())
    }
}

/// The trait implementations every boolean filter needs, for a fragment that names its own
/// tables in its SQL (the list's statement reads `proposals` joined with `proposal_customers`).
macro_rules! boolean_filter {
    ($fragment:ty) => {
        impl Expression for $fragment {
            type SqlType = Bool;
        }
        impl<QS> AppearsOnTable<QS> for $fragment {}
        impl<QS> SelectableExpression<QS> for $fragment {}
        impl ValidGrouping<()> for $fragment {
            type IsAggregate = is_aggregate::Never;
        }
        impl QueryId for $fragment {
            type QueryId = ();
            // Kept by its SQL text, as the boxed statement around it is.
            const HAS_STATIC_QUERY_ID: bool = false;
        }
    };
}

boolean_filter!(NameHasWord);
boolean_filter!(Older);

/// The sizes a page's statement is written with: the smallest that holds the rows asked for
/// (the page and one more, which says whether another page follows). A page of the default 50
/// reads exactly its 51; another size reads at most about twice its rows, which the caller drops.
/// Few sizes, so few statements kept per connection whatever `limit` clients send.
const PAGE_LIMITS: [i64; 5] = [11, 26, 51, 101, 201];

/// A list statement (without a `LIMIT`) and the page's size as a constant: see the module.
pub(crate) struct WithPageLimit<Q> {
    query: Q,
    limit: String,
}

impl<Q> WithPageLimit<Q> {
    /// `rows`: how many the caller needs; the statement may return more (see [`PAGE_LIMITS`]).
    pub(crate) fn new(query: Q, rows: i64) -> Self {
        let limit = PAGE_LIMITS.iter().copied().find(|size| *size >= rows).unwrap_or(rows);
        Self {
            query,
            limit: format!(" LIMIT {limit}"),
        }
    }
}

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for WithPageLimit<Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.query.walk_ast(out.reborrow())?;
        out.push_sql(&self.limit);
        Ok(())
    }
}

impl<Q: Query> Query for WithPageLimit<Q> {
    type SqlType = Q::SqlType;
}

impl<Q> QueryId for WithPageLimit<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::DateTime;

    fn safe_to_keep(fragment: &impl QueryFragment<Pg>) -> bool {
        fragment.is_safe_to_cache_prepared(&Pg).unwrap_or(false)
    }

    #[test]
    fn both_filters_may_be_kept_prepared_where_a_literal_may_not() {
        assert!(safe_to_keep(&NameHasWord("cli".into())));
        let cursor = ListCursor {
            created_at: DateTime::from_timestamp_micros(1_700_000_000_000_000).unwrap_or_default(),
            id: 7,
        };
        assert!(safe_to_keep(&Older(cursor)));
        // What they replace: the same text as a literal is never kept.
        assert!(!safe_to_keep(&diesel::dsl::sql::<Bool>("true")));
    }

    #[test]
    fn a_page_is_written_with_the_smallest_size_that_holds_it() {
        let limit = |rows| WithPageLimit::new((), rows).limit;
        assert_eq!(limit(51), " LIMIT 51", "the default page reads exactly its rows");
        assert_eq!(limit(2), " LIMIT 11");
        assert_eq!(limit(52), " LIMIT 101");
        assert_eq!(limit(201), " LIMIT 201", "the largest page");
        assert_eq!(limit(500), " LIMIT 500", "a size beyond the list's is written as asked");
    }
}
