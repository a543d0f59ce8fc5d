//! Masking in one place (decision 170): the history's SQL spelling of the masks
//! (`history_masked`, written where the triggers write the history) answers what
//! `domain::masking` answers, for every field the domain names and for one it does not.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::TestDatabase;
use diesel::sql_types::Text;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::masking::{HISTORY_FIELDS, Mask};

#[derive(diesel::QueryableByName)]
struct Masked {
    #[diesel(sql_type = Text)]
    masked: String,
}

const SAMPLES: &[&str] = &[
    "12345678909",
    "Maria da Silva",
    "  José   da Conceição ",
    "Ângela Ýara Ñunes",
    "maria.silva@exemplo.com.br",
    "a@b",
    "11912345678",
    "1133334444",
    "1990-05-15",
    "Losartana 50mg",
];

#[tokio::test(flavor = "multi_thread")]
async fn the_history_masks_every_field_as_the_domain_does() {
    let db = TestDatabase::new().await;
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    let fields = HISTORY_FIELDS
        .iter()
        .map(|(field, _)| *field)
        .chain(["medicamento_descricao", "salario"]);
    for field in fields {
        for sample in SAMPLES {
            let sql: Masked = diesel::sql_query("SELECT history_masked($1, $2) AS masked")
                .bind::<Text, _>(field)
                .bind::<Text, _>(*sample)
                .get_result(&mut conn)
                .await
                .unwrap();
            assert_eq!(
                sql.masked,
                Mask::of_history_field(field).apply(sample),
                "{field} of {sample:?}"
            );
        }
    }
}
