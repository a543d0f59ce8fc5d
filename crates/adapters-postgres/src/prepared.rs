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

use crate::statement::Statement;

/// A constant statement with its binds, prepared once per connection.
pub(crate) struct KeepPrepared<Q>(Q);

/// The declared `statement` with `bind` applied, kept prepared.
pub(crate) fn prepared<Q>(statement: Statement, bind: impl FnOnce(SqlQuery) -> Q) -> KeepPrepared<Q> {
    KeepPrepared(bind(statement.query()))
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
