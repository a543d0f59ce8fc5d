//! The partners and representatives proposals are sold under, in PostgreSQL: the domain's
//! `PartnerDirectory`.

use crate::pool::{connection, query_error};
use crate::proposals::PgProposals;
use crate::rows::PartnerRow;
use crate::schema::{partners, representatives};
use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use domain::auth::model::UserId;
use domain::proposals::model::PartnerLink;
use domain::proposals::ports::{PartnerDirectory, Representation};
use domain::store::StoreError;

fn link(row: PartnerRow, representative_id: Option<i64>) -> PartnerLink {
    PartnerLink {
        partner_id: row.id,
        partner_document: row.cpf_cnpj,
        representative_id,
        association_cnpj: row.association_cnpj,
        federation_cnpj: row.federation_cnpj,
    }
}

#[async_trait]
impl PartnerDirectory for PgProposals {
    async fn representation(&self, user_id: UserId) -> Result<Option<Representation>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let found: Option<(i64, PartnerRow)> = representatives::table
            .inner_join(partners::table)
            .filter(representatives::user_id.eq(user_id))
            .select((representatives::id, PartnerRow::as_select()))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(found.map(|(representative_id, partner)| Representation {
            representative_id,
            partner: link(partner, Some(representative_id)),
        }))
    }

    async fn partner(&self, partner_id: i64) -> Result<Option<PartnerLink>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let found: Option<PartnerRow> = partners::table
            .find(partner_id)
            .select(PartnerRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(found.map(|row| link(row, None)))
    }
}
