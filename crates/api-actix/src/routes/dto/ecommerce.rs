//! The online shop: the platform's customer and the card's setup.

use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct PlatformCustomer {
    /// The platform's customer id (`cus_...`).
    #[serde(rename = "customerId")]
    pub customer_id: String,
}

#[derive(Serialize, ToSchema)]
pub struct SetupIntentDto {
    pub id: String,
    /// For the buyer's browser only: never logged or stored here.
    #[serde(rename = "clientSecret")]
    pub client_secret: String,
}
