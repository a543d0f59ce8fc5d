//! Hand-written SQL, each statement declared once beside the row type that reads its answer
//! (decision 260).
//!
//! [`statement!`] declares a [`Statement`], the only SQL that [`Statement::query`] and the
//! `prepared` module run. With the `testing` feature every declaration is
//! also registered, and [`check_statements`] prepares each against the migrated schema and loads
//! one row of its answer's columns into its row type: a statement the schema refuses, a column
//! the row type reads that the statement does not answer, one it answers that nothing reads, or
//! a value of a type the row type cannot read is a problem the repository test names.
//!
//! A statement whose text is made at run time (a channel's or a database's name, a partition's
//! bounds, an identifier chosen among constants) goes through [`built_at_run_time`], which says
//! so where it is called; the statements composed of parts (routes 3, 5 and 6) and the lists'
//! are run whole by the repository tests.

use diesel::query_builder::SqlQuery;

/// A constant statement, declared with [`statement!`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Statement {
    sql: &'static str,
}

impl Statement {
    /// For [`statement!`] only: a statement declared elsewhere escapes the check.
    #[doc(hidden)]
    pub(crate) const fn declared(sql: &'static str) -> Self {
        Statement { sql }
    }

    #[cfg(feature = "testing")]
    pub(crate) const fn sql(self) -> &'static str {
        self.sql
    }

    /// The statement to bind and run (prepared for this run only; see `prepared` for one kept).
    pub(crate) fn query(self) -> SqlQuery {
        #[allow(clippy::disallowed_methods)] // the one door for a declared statement
        diesel::sql_query(self.sql)
    }
}

/// A statement whose text is made at run time, so that no test can see it whole beforehand.
pub(crate) fn built_at_run_time(sql: impl Into<String>) -> SqlQuery {
    #[allow(clippy::disallowed_methods)] // the one door for a statement made at run time
    diesel::sql_query(sql)
}

/// Declares a constant [`Statement`] and, with the `testing` feature, registers it for
/// [`check_statements`] with the row type that reads its answer (`NAME => Row = "…";`), or with
/// none when its answer is not read (`NAME = "…";`).
macro_rules! statement {
    ($(#[$attr:meta])* $vis:vis $name:ident $(=> $row:ty)? = $sql:expr;) => {
        $(#[$attr])*
        $vis const $name: $crate::statement::Statement = $crate::statement::Statement::declared($sql);
        #[cfg(feature = "testing")]
        inventory::submit! {
            $crate::statement::Declared {
                name: concat!(module_path!(), "::", stringify!($name)),
                sql: $name.sql(),
                reads: $crate::statement::statement!(@reads $($row)?),
            }
        }
    };
    (@reads $row:ty) => {
        Some((stringify!($row), $crate::statement::read_rows::<$row> as $crate::statement::ReadRows))
    };
    (@reads) => {
        None
    };
}

pub(crate) use statement;

#[cfg(feature = "testing")]
pub use check::{Declared, ReadRows, check_statements, declared, read_rows};

#[cfg(feature = "testing")]
mod check {
    use diesel::QueryableByName;
    use diesel::pg::Pg;
    use diesel::result::QueryResult;
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    use futures_util::future::BoxFuture;
    use tokio_postgres::types::{Kind, Type};

    /// A registered statement: where it is declared, its text, and the row type that reads it.
    pub struct Declared {
        pub name: &'static str,
        pub sql: &'static str,
        pub reads: Option<(&'static str, ReadRows)>,
    }

    inventory::collect!(Declared);

    /// Loads the rows of a statement's text into the row type: how many it read.
    pub type ReadRows = for<'c> fn(&'c mut AsyncPgConnection, String) -> BoxFuture<'c, QueryResult<usize>>;

    pub fn read_rows<T: QueryableByName<Pg> + Send + 'static>(
        conn: &mut AsyncPgConnection,
        sql: String,
    ) -> BoxFuture<'_, QueryResult<usize>> {
        Box::pin(async move {
            #[allow(clippy::disallowed_methods)] // the check's own probe, made from the answer's columns
            let rows = diesel::sql_query(sql).load::<T>(conn).await?;
            Ok(rows.len())
        })
    }

    /// Every statement declared in the crate.
    pub fn declared() -> impl Iterator<Item = &'static Declared> {
        inventory::iter::<Declared>.into_iter()
    }

    /// The problems of `statements` against the database at `url` (migrated): each named by its
    /// declaration. Prepared through the wire protocol, which answers the result's columns with
    /// their names and types; then one row of those columns, each a value of its type, is read
    /// into the row type whole (it must read), and without each column in turn (it must not).
    pub async fn check_statements<'d>(url: &str, statements: impl IntoIterator<Item = &'d Declared>) -> Vec<String> {
        let mut problems = Vec::new();
        let (client, connection) = match tokio_postgres::connect(url, tokio_postgres::NoTls).await {
            Ok(pair) => pair,
            Err(e) => return vec![format!("sem conexão para preparar: {e}")],
        };
        let connection = tokio::spawn(connection);
        let mut conn = match AsyncPgConnection::establish(url).await {
            Ok(conn) => conn,
            Err(e) => return vec![format!("sem conexão para ler: {e}")],
        };
        for declared in statements {
            let prepared = match client.prepare(declared.sql).await {
                Ok(prepared) => prepared,
                Err(e) => {
                    let cause = e
                        .as_db_error()
                        .map_or_else(|| e.to_string(), |db| db.message().to_owned());
                    problems.push(format!("{}: o esquema recusa a instrução: {cause}", declared.name));
                    continue;
                }
            };
            let Some((row, read)) = declared.reads else { continue };
            let columns: Vec<String> = prepared
                .columns()
                .iter()
                .map(|c| format!("{} AS \"{}\"", sample(c.type_()), c.name()))
                .collect();
            if let Err(e) = read(&mut conn, format!("SELECT {}", columns.join(", "))).await {
                problems.push(format!("{}: {row} não lê a resposta: {e}", declared.name));
                continue;
            }
            for (i, column) in prepared.columns().iter().enumerate() {
                let others: Vec<&str> = columns
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, c)| c.as_str())
                    .collect();
                if read(&mut conn, format!("SELECT {}", others.join(", "))).await.is_ok() {
                    problems.push(format!(
                        "{}: a resposta traz {}, que {row} não lê",
                        declared.name,
                        column.name()
                    ));
                }
            }
        }
        drop(client);
        let _ = connection.await;
        problems
    }

    /// A value of `ty` whose bytes no other type's reader takes for its own: an integer of all
    /// ones (no text reads it, and its width is its type's), text of three bytes, a time, etc.
    fn sample(ty: &Type) -> String {
        if let Kind::Array(element) = ty.kind() {
            return format!("'{{}}'::{}[]", element.name());
        }
        let value = match ty.name() {
            "int2" | "int4" | "int8" => "-1",
            "text" | "varchar" | "bpchar" | "name" => "'abc'",
            "bool" => "true",
            "timestamptz" | "timestamp" => "'2026-01-02 03:04:05+00'",
            "date" => "'2026-01-02'",
            "numeric" | "float4" | "float8" => "1.5",
            "jsonb" | "json" => "'{}'",
            "uuid" => "'00000000-0000-0000-0000-000000000001'",
            "bytea" => "'\\x01'",
            _ => "NULL",
        };
        format!("{value}::{}", ty.name())
    }
}
