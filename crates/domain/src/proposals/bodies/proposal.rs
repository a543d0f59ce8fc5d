//! The bodies of routes 5 and 6 (the partner's proposal and the online shop's) and their
//! payment, read into the requests of `super::super::model`.

use super::customer::{ProposalAddressBody, ProposalCustomerBody, ReadingRules, ShopCustomerBody};
use crate::billing::pix::PayerAccount;
use crate::input::{Field, Reading, TextOrNumber, limits};
use crate::json_object;
use crate::proposals::model::{EcommerceProposalRequest, PaymentDetails, ProposalRequest};
use crate::validation::{Violations, codes};
use crate::values::*;
use serde::Deserialize;

/// `discountOnSheet`, required when paying by `DESCONTO EM FOLHA`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(description = "`discountOnSheet`, obrigatório quando o pagamento é `DESCONTO EM FOLHA`.")
)]
pub struct DiscountOnSheetBody {
    /// Número do benefício ou da matrícula: texto ou inteiro não negativo.
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "1234567890"))]
    pub number: Field<TextOrNumber>,
    #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 41))]
    pub specie: Field<i64>,
    #[cfg_attr(feature = "openapi", schema(value_type = SheetType))]
    pub r#type: Field<String>,
}

/// `debitAccount`, required when paying by `DÉBITO EM CONTA`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(description = "`debitAccount`, obrigatório quando o pagamento é `DÉBITO EM CONTA`.")
)]
pub struct DebitAccountBody {
    /// Código de 3 dígitos do banco; um dos bancos do produto.
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{3}$", example = "001"))]
    pub bank: Field<TextOrNumber>,
    /// Até 5 dígitos, com dígito verificador opcional (1234-5).
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{1,5}(-[0-9X])?$", example = "1234-5"))]
    pub agency: Field<TextOrNumber>,
    /// Até 12 dígitos, com dígito verificador opcional (12345-6).
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{1,12}(-[0-9X])?$", example = "12345-6"))]
    pub account: Field<TextOrNumber>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub operation: Field<String>,
}

/// `pixAutomatico`, optional when paying by `PIX AUTOMÁTICO`: the payer's account, so that their
/// bank asks them to authorise the recurrence (jornada 1). Without it the customer receives the
/// recurrence's QR code with the signing link (jornada 2).
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "`pixAutomatico`, opcional quando o pagamento é `PIX AUTOMÁTICO`: a conta do pagador, para que o banco dele lhe peça a autorização da recorrência (jornada 1). Sem ela, o cliente recebe o QR code da recorrência com o link de assinatura (jornada 2)."
    )
)]
pub struct PixAutomaticoBody {
    /// ISPB do banco do pagador (8 caracteres).
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^[0-9A-Z]{8}$", example = "60701190"))]
    pub ispb: Field<TextOrNumber>,
    /// Agência, de 1 a 4 dígitos (opcional).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, pattern = r"^\d{1,4}$", example = "0001"))]
    pub agencia: Field<TextOrNumber>,
    /// Conta, até 20 dígitos, com dígito verificador opcional (12345-6).
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{1,19}(-?\d)?$", example = "12345-6"))]
    pub conta: Field<TextOrNumber>,
}

/// Route 5's body. `discountOnSheet` is required for `DESCONTO EM FOLHA`, `debitAccount` for
/// `DÉBITO EM CONTA`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Corpo da rota 5. `discountOnSheet` é obrigatório para `DESCONTO EM FOLHA`, `debitAccount` para `DÉBITO EM CONTA`."
    )
)]
pub struct ProposalBody {
    #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 5002))]
    pub billing_code: Field<i64>,
    #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 101))]
    pub product_code: Field<i64>,
    #[cfg_attr(feature = "openapi", schema(value_type = PaymentType))]
    pub type_of_payments: Field<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = ShippingType))]
    pub shipping_type: Field<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = ProposalCustomerBody))]
    pub customer: Field<ProposalCustomerBody>,
    #[cfg_attr(feature = "openapi", schema(value_type = ProposalAddressBody))]
    pub address: Field<ProposalAddressBody>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<DiscountOnSheetBody>))]
    pub discount_on_sheet: Field<DiscountOnSheetBody>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<DebitAccountBody>))]
    pub debit_account: Field<DebitAccountBody>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<PixAutomaticoBody>))]
    pub pix_automatico: Field<PixAutomaticoBody>,
}

/// Route 6's body: the online shop's proposal.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(description = "Corpo da rota 6: a proposta da loja online.")
)]
pub struct ShopProposalBody {
    #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 5004))]
    pub billing_code: Field<i64>,
    #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 103))]
    pub product_code: Field<i64>,
    /// `sms` quando ausente.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<ShippingType>))]
    pub shipping_type: Field<String>,
    /// O parceiro a quem a venda é creditada, se houver.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<i64>))]
    pub partner_id: Field<i64>,
    #[cfg_attr(feature = "openapi", schema(value_type = ShopCustomerBody))]
    pub customer: Field<ShopCustomerBody>,
    #[cfg_attr(feature = "openapi", schema(value_type = ProposalAddressBody))]
    pub address: Field<ProposalAddressBody>,
}
json_object!(
    DiscountOnSheetBody,
    DebitAccountBody,
    PixAutomaticoBody,
    ProposalBody,
    ShopProposalBody
);

/// The payment's bodies as route 5 sent them: the one its type asks for is read.
struct PaymentBodies {
    sheet: Field<DiscountOnSheetBody>,
    debit: Field<DebitAccountBody>,
    pix: Field<PixAutomaticoBody>,
}

fn read_payment(
    r: &mut Reading<'_>,
    payment_type: Option<PaymentType>,
    bodies: PaymentBodies,
) -> Option<PaymentDetails> {
    let PaymentBodies { sheet, debit, pix } = bodies;
    match payment_type? {
        PaymentType::PayrollDiscount => r.object("discountOnSheet", sheet, |s, r| {
            let number = r.text_or_number("number", s.number);
            let specie = r.integer("specie", s.specie).and_then(|n| match i32::try_from(n) {
                Ok(specie) if specie > 0 => Some(specie),
                _ => {
                    r.add("specie", codes::INVALID_VALUE, "specie deve ser um inteiro positivo");
                    None
                }
            });
            let sheet_type = r.parse("type", s.r#type, SheetType::parse);
            Some(PaymentDetails::PayrollDiscount {
                number: number?,
                specie: specie?,
                sheet_type: sheet_type?,
            })
        }),
        PaymentType::AccountDebit => r.object("debitAccount", debit, |d, r| {
            let bank = r.text_or_number("bank", d.bank);
            let agency = r.text_or_number("agency", d.agency);
            let account = r.text_or_number("account", d.account);
            let operation = r.optional_text_within("operation", d.operation, limits::HOUSE_NUMBER);
            let (v, prefix) = r.at_this_level();
            BankAccount::parse(
                v,
                prefix,
                bank.as_deref(),
                agency.as_deref(),
                account.as_deref(),
                operation.as_deref(),
            )
            .map(PaymentDetails::AccountDebit)
        }),
        PaymentType::PixAutomatic => {
            let given = !matches!(pix, Field::Missing);
            let account = r.optional_object("pixAutomatico", pix, |p, r| {
                let ispb = r.text_or_number("ispb", p.ispb);
                let agencia = r.optional_text_or_number("agencia", p.agencia);
                let conta = r.text_or_number("conta", p.conta);
                let (v, prefix) = r.at_this_level();
                PayerAccount::parse(v, prefix, ispb.as_deref(), agencia.as_deref(), conta.as_deref())
            });
            // Sent but not read (a bad member, or not an object): the errors say why.
            match (given, account) {
                (true, None) => None,
                (_, account) => Some(PaymentDetails::PixAutomatic(account)),
            }
        }
    }
}

impl ProposalBody {
    /// Every bad member at once, or the proposal's request.
    pub fn read(self, at: &ReadingRules) -> Result<ProposalRequest, Violations> {
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let billing_code = r.code("billingCode", self.billing_code);
        let product_code = r.code("productCode", self.product_code);
        let payment_type = r.parse("typeOfPayments", self.type_of_payments, PaymentType::parse);
        let shipping = r.parse("shippingType", self.shipping_type, ShippingType::parse);
        let customer = r.object("customer", self.customer, |c, r| c.read(r, at));
        let address = r.object("address", self.address, |a, r| a.read(r));
        let bodies = PaymentBodies {
            sheet: self.discount_on_sheet,
            debit: self.debit_account,
            pix: self.pix_automatico,
        };
        let payment = read_payment(&mut r, payment_type, bodies);
        let request = (|| {
            Some(ProposalRequest {
                billing_code: billing_code?,
                product_code: product_code?,
                payment: payment?,
                shipping: shipping?,
                customer: customer?,
                address: address?,
            })
        })();
        match request {
            Some(request) if v.is_empty() => Ok(request),
            _ => Err(v),
        }
    }
}

impl ShopProposalBody {
    /// Every bad member at once, or the shop's proposal request.
    pub fn read(self, at: &ReadingRules) -> Result<EcommerceProposalRequest, Violations> {
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let billing_code = r.code("billingCode", self.billing_code);
        let product_code = r.code("productCode", self.product_code);
        let shipping = r.parse_optional("shippingType", self.shipping_type, ShippingType::parse);
        let partner_id = r.optional_integer("partnerId", self.partner_id);
        let customer = r.object("customer", self.customer, |c, r| c.read(r, at));
        let address = r.object("address", self.address, |a, r| a.read(r));
        let request = (|| {
            Some(EcommerceProposalRequest {
                billing_code: billing_code?,
                product_code: product_code?,
                shipping,
                partner_id,
                customer: customer?,
                address: address?,
            })
        })();
        match request {
            Some(request) if v.is_empty() => Ok(request),
            _ => Err(v),
        }
    }
}
