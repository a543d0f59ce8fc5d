//! `sales-api user create` takes the password from standard input or a prompt, never from an
//! argument (which would sit in the shell history and the process list).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::TestDatabase;
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `user create` for `email` with `args`, writing `stdin` to it: (success, what it said).
fn create(db: &TestDatabase, email: &str, args: &[&str], stdin: &str) -> (bool, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sales-api"))
        .args(["user", "create", "--email", email, "--application", "BACKOFFICE"])
        .args(args)
        .env_clear()
        .env("SALES_ENV", "development")
        .env("DATABASE_URL", &db.url)
        .env("BCRYPT_COST", "4")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), said)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_password_comes_from_standard_input_or_a_prompt_never_an_argument() {
    let db = TestDatabase::new().await;
    let (created, said) = create(&db, "ana@exemplo.com.br", &["--password-stdin"], "Vendas#2026\n");
    assert!(created, "{said}");
    assert!(said.contains("criado"), "{said}");

    // Not a terminal and no --password-stdin: nothing to prompt on, so it says how.
    let (created, said) = create(&db, "bia@exemplo.com.br", &[], "Vendas#2026\n");
    assert!(!created && said.contains("--password-stdin"), "{said}");
    // The argument form is gone.
    let (created, said) = create(&db, "caio@exemplo.com.br", &["--password", "Vendas#2026"], "");
    assert!(!created && said.contains("--password"), "{said}");
    // An empty line, or a weak password, is refused naming the field.
    let (created, said) = create(&db, "duda@exemplo.com.br", &["--password-stdin"], "\n");
    assert!(!created && said.contains("password"), "{said}");
    let (created, said) = create(&db, "eva@exemplo.com.br", &["--password-stdin"], "123\n");
    assert!(!created && said.contains("password"), "{said}");
}

#[tokio::test(flavor = "multi_thread")]
async fn user_list_shows_every_user_with_applications_and_partner_and_no_hash() {
    let db = TestDatabase::new().await;
    let (created, said) = create(&db, "bo@exemplo.com.br", &["--password-stdin"], "Vendas#2026\n");
    assert!(created, "{said}");
    let (created, said) = create(
        &db,
        "rep@exemplo.com.br",
        &[
            "--password-stdin",
            "--application",
            "PARCEIRO",
            "--partner",
            "11222333000181",
        ],
        "Vendas#2026\n",
    );
    assert!(created, "{said}");
    let output = Command::new(env!("CARGO_BIN_EXE_sales-api"))
        .args(["user", "list"])
        .env_clear()
        .env("SALES_ENV", "development")
        .env("DATABASE_URL", &db.url)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{said}");
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 4, "{said}");
    assert!(lines[1].contains("bo@exemplo.com.br\tBACKOFFICE\t-\t"), "{said}");
    assert!(
        lines[2].contains("rep@exemplo.com.br\tBACKOFFICE,PARCEIRO\t11222333000181\t"),
        "{said}"
    );
    assert_eq!(lines[3], "2 usuário(s)");
    assert!(!said.contains("$2"), "no password hash: {said}");
}

/// Runs `sales-api user ARGS...`: (success, what it said).
fn user(db: &TestDatabase, args: &[&str]) -> (bool, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_sales-api"))
        .arg("user")
        .args(args)
        .env_clear()
        .env("SALES_ENV", "development")
        .env("DATABASE_URL", &db.url)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), said)
}

/// `(credentials_epoch, disabled)` of the user with `email`.
async fn standing(db: &TestDatabase, email: &str) -> (i32, bool) {
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    #[derive(diesel::QueryableByName)]
    struct Standing {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        credentials_epoch: i32,
        #[diesel(sql_type = diesel::sql_types::Bool)]
        disabled: bool,
    }
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    let row: Standing = diesel::sql_query(format!(
        "SELECT credentials_epoch, disabled_at IS NOT NULL AS disabled FROM users WHERE email = '{email}'"
    ))
    .get_result(&mut conn)
    .await
    .unwrap();
    (row.credentials_epoch, row.disabled)
}

#[tokio::test(flavor = "multi_thread")]
async fn user_disable_and_update_end_the_users_sessions_and_name_what_is_wrong() {
    let db = TestDatabase::new().await;
    let (created, said) = create(&db, "ana@exemplo.com.br", &["--password-stdin"], "Vendas#2026\n");
    assert!(created, "{said}");
    assert_eq!(standing(&db, "ana@exemplo.com.br").await, (0, false));

    let (updated, said) = user(
        &db,
        &[
            "update",
            "--email",
            "ana@exemplo.com.br",
            "--application",
            "ECOMMERCE",
            "--application",
            "BACKOFFICE",
        ],
    );
    assert!(updated && said.contains("sessões foram encerradas"), "{said}");
    assert_eq!(standing(&db, "ana@exemplo.com.br").await, (1, false));
    let (_, listed) = user(&db, &["list"]);
    assert!(
        listed.contains("ana@exemplo.com.br\tBACKOFFICE,ECOMMERCE\t"),
        "{listed}"
    );

    // Refusals name the problem and change nothing.
    let (updated, said) = user(
        &db,
        &["update", "--email", "ana@exemplo.com.br", "--application", "LOJA"],
    );
    assert!(!updated && said.contains("application[0]"), "{said}");
    let (updated, said) = user(
        &db,
        &["update", "--email", "ana@exemplo.com.br", "--application", "PARCEIRO"],
    );
    assert!(!updated && said.contains("--partner"), "{said}");
    let (updated, said) = user(
        &db,
        &[
            "update",
            "--email",
            "ninguem@exemplo.com.br",
            "--application",
            "ECOMMERCE",
        ],
    );
    assert!(!updated && said.contains("nenhum usuário"), "{said}");
    assert_eq!(standing(&db, "ana@exemplo.com.br").await, (1, false));

    let (disabled, said) = user(&db, &["disable", "--email", "ana@exemplo.com.br"]);
    assert!(disabled && said.contains("desativado"), "{said}");
    assert_eq!(standing(&db, "ana@exemplo.com.br").await, (2, true));
    let (disabled, said) = user(&db, &["disable", "--email", "não-é-email"]);
    assert!(!disabled && said.contains("email"), "{said}");
}

/// The user's pinned contract version (`-` when never pinned).
async fn pinned(db: &TestDatabase, email: &str) -> String {
    use diesel_async::{AsyncConnection, AsyncPgConnection};
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    adapters_postgres::testing::line(
        &mut conn,
        &format!("SELECT coalesce(api_version, '-') AS line FROM users WHERE email = '{email}'"),
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn user_version_pins_and_unpins_and_refuses_an_unknown_version_naming_the_known_ones() {
    let db = TestDatabase::new().await;
    let (created, said) = create(&db, "ana@exemplo.com.br", &["--password-stdin"], "Vendas#2026\n");
    assert!(created, "{said}");

    let (done, said) = user(
        &db,
        &["version", "--email", "ana@exemplo.com.br", "--version", "2026-12-01"],
    );
    assert!(done && said.contains("2026-12-01"), "{said}");
    assert_eq!(pinned(&db, "ana@exemplo.com.br").await, "2026-12-01");

    // An unknown version changes nothing and says which there are.
    let (done, said) = user(
        &db,
        &["version", "--email", "ana@exemplo.com.br", "--version", "2025-01-01"],
    );
    assert!(!done && said.contains("2026-11-21, 2026-11-29, 2026-12-01"), "{said}");
    assert_eq!(pinned(&db, "ana@exemplo.com.br").await, "2026-12-01");
    // Neither a version nor --unpin, or both: refused by the arguments.
    let (done, said) = user(&db, &["version", "--email", "ana@exemplo.com.br"]);
    assert!(!done && said.contains("--version"), "{said}");
    let (done, _) = user(
        &db,
        &[
            "version",
            "--email",
            "ana@exemplo.com.br",
            "--version",
            "2026-12-01",
            "--unpin",
        ],
    );
    assert!(!done);
    // An unknown user, or a malformed e-mail, is named.
    let (done, said) = user(&db, &["version", "--email", "ninguem@exemplo.com.br", "--unpin"]);
    assert!(!done, "{said}");
    let (done, said) = user(&db, &["version", "--email", "nao-e-email", "--unpin"]);
    assert!(!done && said.contains("email"), "{said}");

    let (done, said) = user(&db, &["version", "--email", "ana@exemplo.com.br", "--unpin"]);
    assert!(done && said.contains("2026-11-29"), "{said}");
    assert_eq!(pinned(&db, "ana@exemplo.com.br").await, "-");
}
