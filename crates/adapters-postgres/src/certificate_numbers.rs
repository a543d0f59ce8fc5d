//! The certificates' registrable numbers (decision 281): each product's own gapless sequence,
//! taken inside the transaction that makes a certificate due (the acceptance, a renewal).

use crate::schema::{product_certificate_sequences as sequences, products, proposals};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::contract::certificate::certificate_number;

/// The next number in the sequence of the product of the proposal `proposal_id` (decision 281),
/// inside the caller's transaction: the product's row in the sequences stays locked until it
/// commits, so that two acceptances of one product take consecutive numbers and a rolled-back one
/// leaves no gap.
pub(crate) async fn next_certificate_number(conn: &mut AsyncPgConnection, proposal_id: i64) -> QueryResult<String> {
    let (product_id, product_code): (i64, i32) = proposals::table
        .inner_join(products::table)
        .filter(proposals::id.eq(proposal_id))
        .select((products::id, products::codigo_produto))
        .first(conn)
        .await?;
    let sequence: i64 = diesel::insert_into(sequences::table)
        .values((sequences::id_produto.eq(product_id), sequences::ultimo.eq(1_i64)))
        .on_conflict(sequences::id_produto)
        .do_update()
        .set(sequences::ultimo.eq(sequences::ultimo + 1_i64))
        .returning(sequences::ultimo)
        .get_result(conn)
        .await?;
    Ok(certificate_number(product_code, sequence))
}
