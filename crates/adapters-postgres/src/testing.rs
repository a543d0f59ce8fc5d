//! A fresh database for each test, cloned from a migrated template, so that tests run in parallel
//! and never see each other's rows. The template is made once per set of migrations (under an
//! advisory lock, as test processes run side by side) and reused by later runs.

// The harness runs the SQL a test hands it, and makes databases by name.
#![allow(clippy::disallowed_methods)]

use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

pub use crate::statement::{Declared, ReadRows, check_statements, declared, read_rows};

/// An online sale of "José da Conceição" (product 101 and its billing group, an address, the
/// shop's registration, the proposal and its copy of the customer), in the columns every schema
/// from migration 000009 on has: the rows a migration's test writes before migrating up.
pub const ONE_SHOP_SALE: &str = "
INSERT INTO products (codigo_produto, nome, codigo_integracao, alterado_por) VALUES (101, 'P1', 9101, 'x');
INSERT INTO billing_groups (codigo_faturamento, descricao, codigo_integracao, codigo_produto, alterado_por)
    VALUES (5001, 'M', 9101, 101, 'x');
INSERT INTO addresses (cep, endereco, numero, bairro, cidade, estado)
    VALUES ('01310100', 'Avenida Paulista', '1', 'Bela Vista', 'São Paulo', 'SP');
INSERT INTO customers (cpf, nome_completo, data_nascimento, sexo, alterado_por, id_endereco, aplicacao_vendedor)
    VALUES ('12345678909', 'José da Conceição', '1990-01-01', 'Masculino', 'x', (SELECT max(id) FROM addresses), 'ECOMMERCE');
INSERT INTO proposals (identificador, id_cliente, cpf_cliente, alterado_por, tipo_envio, fluxo, id_produto, codigo_faturamento)
    SELECT 'p-1', c.id, c.cpf, 'x', 'sms', 'ECOMMERCE', (SELECT id FROM products), 5001 FROM customers c;
INSERT INTO proposal_customers (id_proposta, id_cliente, cpf, nome_completo, data_nascimento, sexo, trabalhando,
                                servidor_publico, pep, afastado, medicamento, e_analfabeto, cep, endereco, numero,
                                bairro, cidade, estado, alterado_por, criado_em, alterado_em)
    SELECT p.id, c.id, c.cpf, c.nome_completo, c.data_nascimento, c.sexo, false, false, false, false, false, false,
           '01310100', 'Avenida Paulista', '1', 'Bela Vista', 'São Paulo', 'SP', 'x', now(), now()
    FROM proposals p JOIN customers c ON c.id = p.id_cliente;
";

/// [`ONE_SHOP_SALE`]'s proposal made a partner's accepted contract paid by `payment`, R$ 39,90,
/// sold by the representative of partner 11222333000181 (the migration tests of the money after
/// the acceptance start from it).
pub fn one_partner_contract(payment: &str) -> String {
    format!(
        "INSERT INTO partners (cpf_cnpj, social_reason, alterado_por) VALUES ('11222333000181', 'Parceiro', 'x');
         INSERT INTO users (email, password_hash) VALUES ('rep@x', 'x');
         INSERT INTO representatives (user_id, partner_id) SELECT u.id, p.id FROM users u, partners p;
         UPDATE proposals SET status = 'APROVADO', fluxo = 'PARCEIRO', tipo_pagamento = '{payment}', valor = 3990,
             id_parceiro = (SELECT id FROM partners), id_representante = (SELECT id FROM representatives);"
    )
}

#[derive(QueryableByName)]
struct Line {
    #[diesel(sql_type = diesel::sql_types::Text)]
    line: String,
}

/// The text column `line` of every row `query` returns, in order (a migration test's reads).
pub async fn lines(conn: &mut AsyncPgConnection, query: &str) -> Vec<String> {
    diesel::sql_query(query)
        .load::<Line>(conn)
        .await
        .unwrap_or_else(|e| panic!("{query}: {e}"))
        .into_iter()
        .map(|l| l.line)
        .collect()
}

/// A back office's webhook subscription to `events` (SQL: quoted kinds, comma separated), named
/// by its endpoint: the row the migration tests of event kinds start from.
pub fn hook_subscription_row(endpoint: &str, events: &str) -> String {
    format!(
        "INSERT INTO hook_subscriptions (uuid, owner_application, created_by, endpoint, events, status, secret_sealed, \
         created_at, updated_at) VALUES (gen_random_uuid(), 'BACKOFFICE', 'x', '{endpoint}', ARRAY[{events}], 'ATIVO', \
         '\\x00', now(), now());"
    )
}

/// A delivery of `kind` to the subscription at `endpoint` (see [`hook_subscription_row`]).
pub fn hook_delivery_row(endpoint: &str, kind: &str) -> String {
    format!(
        "INSERT INTO hook_deliveries (subscription_id, message_id, event_type, body, next_attempt_at) \
         SELECT id, 'msg_' || md5(random()::text), '{kind}', '{{}}', now() FROM hook_subscriptions \
         WHERE endpoint = '{endpoint}';"
    )
}

/// The text column `line` of the one row `query` returns.
pub async fn line(conn: &mut AsyncPgConnection, query: &str) -> String {
    lines(conn, query)
        .await
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{query}: no row"))
}

/// The server tests use, unless `TEST_DATABASE_URL` names another.
pub const DEFAULT_ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// One test's own database, dropped when the value is dropped.
pub struct TestDatabase {
    pub url: String,
    pub name: String,
    admin_url: String,
}

#[derive(QueryableByName)]
struct Exists {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    exists: bool,
}

fn admin_url() -> String {
    std::env::var("TEST_DATABASE_URL").unwrap_or_else(|_| DEFAULT_ADMIN_URL.to_owned())
}

/// The URL of another database on the same server.
pub fn with_database(url: &str, database: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let server = base.rsplit_once('/').map_or(base, |(s, _)| s);
    match query {
        Some(q) => format!("{server}/{database}?{q}"),
        None => format!("{server}/{database}"),
    }
}

/// The migrations this binary embedded (versioned and repeatable, digested by `build.rs`) name the
/// template, so a changed migration makes a new one and a stale binary never takes a template made
/// by a newer one for its own.
fn template_name() -> String {
    format!("sales_template_{}", env!("SCHEMA_SOURCES_DIGEST"))
}

async fn exec(conn: &mut AsyncPgConnection, sql: &str) -> QueryResult<usize> {
    diesel::sql_query(sql).execute(conn).await
}

impl TestDatabase {
    /// Creates a new database from the migrated template. Panics when the server cannot be
    /// reached: a test without its database cannot say anything.
    pub async fn new() -> Self {
        let admin = admin_url();
        let template = template_name();
        let mut conn = AsyncPgConnection::establish(&admin)
            .await
            .unwrap_or_else(|e| panic!("PostgreSQL de teste inacessível em {admin}: {e}"));
        ensure_template(&mut conn, &admin, &template).await;
        let name = format!("sales_test_{}", uuid::Uuid::new_v4().simple());
        // Concurrent clones of one template may collide briefly; try again a few times.
        let mut attempt = 0;
        loop {
            match exec(
                &mut conn,
                &format!("CREATE DATABASE \"{name}\" TEMPLATE \"{template}\""),
            )
            .await
            {
                Ok(_) => break,
                Err(e) if attempt < 20 && e.to_string().contains("being accessed by other users") => {
                    attempt += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(50 * attempt)).await;
                }
                Err(e) => panic!("não foi possível criar o banco de teste: {e}"),
            }
        }
        Self {
            url: with_database(&admin, &name),
            name,
            admin_url: admin,
        }
    }
}

async fn ensure_template(conn: &mut AsyncPgConnection, admin: &str, template: &str) {
    exec(conn, "SELECT pg_advisory_lock(727274)")
        .await
        .expect("advisory lock");
    let ready = diesel::sql_query(format!(
        "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = '{template}' AND datistemplate) AS exists"
    ))
    .get_result::<Exists>(conn)
    .await
    .map(|e| e.exists)
    .unwrap_or(false);
    if !ready {
        // A template left half-made by an interrupted run is dropped and made again.
        exec(conn, &format!("DROP DATABASE IF EXISTS \"{template}\" WITH (FORCE)"))
            .await
            .expect("drop stale template");
        exec(conn, &format!("CREATE DATABASE \"{template}\""))
            .await
            .expect("create template");
        crate::migrations::run_pending(&with_database(admin, template))
            .await
            .expect("migrate template");
        exec(
            conn,
            &format!("ALTER DATABASE \"{template}\" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"),
        )
        .await
        .expect("mark template");
    }
    exec(conn, "SELECT pg_advisory_unlock(727274)")
        .await
        .expect("advisory unlock");
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let admin = self.admin_url.clone();
        let name = self.name.clone();
        // Drop runs inside the test's runtime: do the async work on a thread of its own.
        let handle = std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
                return;
            };
            runtime.block_on(async move {
                if let Ok(mut conn) = AsyncPgConnection::establish(&admin).await {
                    let _ = exec(&mut conn, &format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)")).await;
                }
            });
        });
        let _ = handle.join();
    }
}

/// The one way a migration that moves stored rows is tested: on a fresh database taken back to
/// just before `version` (where the test writes its rows), up, down and up again, each step
/// answering a new connection. Down checks that `version` was reverted, and it only.
pub struct MigrationRoundTrip {
    pub db: TestDatabase,
    version: &'static str,
}

impl MigrationRoundTrip {
    /// A fresh database with `version` and every later migration reverted.
    pub async fn before(version: &'static str) -> Self {
        let db = TestDatabase::new().await;
        assert_eq!(
            revert_through(&db.url, version).await.last().map(String::as_str),
            Some(version)
        );
        Self { db, version }
    }

    /// A fresh database with every migration applied, for a test that writes its rows last and
    /// goes down first.
    pub async fn applied(version: &'static str) -> Self {
        Self {
            db: TestDatabase::new().await,
            version,
        }
    }

    pub async fn connect(&self) -> AsyncPgConnection {
        AsyncPgConnection::establish(&self.db.url)
            .await
            .unwrap_or_else(|e| panic!("conectar ao banco de teste: {e}"))
    }

    /// Every pending migration applied (`version` and those after it).
    pub async fn up(&self) -> AsyncPgConnection {
        crate::migrations::run_pending(&self.db.url)
            .await
            .unwrap_or_else(|e| panic!("aplicar as migrações: {e}"));
        self.connect().await
    }

    /// Tries `version`'s own down, the later migrations reverted first (so the test still meets
    /// its own migration when newer ones land), and answers what the down said: a test of a
    /// refused down reads the refusal.
    pub async fn try_down(&self) -> Result<String, crate::migrations::MigrationError> {
        revert_after(&self.db.url, self.version).await;
        crate::migrations::revert_last(&self.db.url).await
    }

    /// Back to just before `version` again.
    pub async fn down(&self) -> AsyncPgConnection {
        assert_eq!(
            revert_through(&self.db.url, self.version)
                .await
                .last()
                .map(String::as_str),
            Some(self.version)
        );
        self.connect().await
    }
}

/// Reverts every migration newer than `version` (leaving it applied), newest first, and answers
/// them: a test of an older migration's down goes past the later ones first.
pub async fn revert_after(url: &str, version: &str) -> Vec<String> {
    let mut reverted = Vec::new();
    loop {
        let mut conn = AsyncPgConnection::establish(url)
            .await
            .unwrap_or_else(|e| panic!("conectar ao banco de teste: {e}"));
        let newest = line(&mut conn, "SELECT max(version) AS line FROM __diesel_schema_migrations").await;
        if newest.as_str() <= version {
            return reverted;
        }
        reverted.push(
            crate::migrations::revert_last(url)
                .await
                .unwrap_or_else(|e| panic!("reverter migração: {e}")),
        );
    }
}

/// Reverts migrations newest first down to and including `version` (a data-migration test of an
/// older migration goes past every later one), and answers what it reverted, newest first.
/// Panics when it reaches an older version without meeting `version`.
pub async fn revert_through(url: &str, version: &str) -> Vec<String> {
    let mut reverted = Vec::new();
    loop {
        let last = crate::migrations::revert_last(url)
            .await
            .unwrap_or_else(|e| panic!("reverter migração: {e}"));
        assert!(
            last.as_str() >= version,
            "{last} é anterior a {version}: não estava aplicada"
        );
        let done = last == version;
        reverted.push(last);
        if done {
            return reverted;
        }
    }
}
