//! The bodies of routes 5 and 6 (the partner's proposal and the online shop's) and their
//! payment, read into the requests of `super::super::model`.

use super::customer::{ProposalAddressBody, ProposalCustomerBody, ReadingRules, ShopCustomerBody};
use crate::billing::pix::PayerAccount;
use crate::input::{Field, Reading, TextOrNumber, limits};
use crate::proposals::beneficiaries::{self, Beneficiary};
use crate::proposals::model::{EcommerceProposalRequest, PaymentDetails, ProposalRequest};
use crate::validation::{Violations, codes};
use crate::values::*;
use crate::wire_body;

wire_body! {
    /// `discountOnSheet`, required when paying by `DESCONTO EM FOLHA`.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "`discountOnSheet`, obrigatório quando o pagamento é `DESCONTO EM FOLHA`.")
    )]
    pub struct DiscountOnSheetBody => DiscountOnSheetMembers {
        /// Número do benefício ou da matrícula: texto ou inteiro não negativo.
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "1234567890"))]
        number: Field<TextOrNumber>,
        #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 41))]
        specie: Field<i64>,
        #[cfg_attr(feature = "openapi", schema(value_type = SheetType))]
        r#type as "type": Field<String>,
    }
}

wire_body! {
    /// `debitAccount`, required when paying by `DÉBITO EM CONTA`.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "`debitAccount`, obrigatório quando o pagamento é `DÉBITO EM CONTA`.")
    )]
    pub struct DebitAccountBody => DebitAccountMembers {
        /// Código de 3 dígitos do banco; um dos bancos do produto.
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{3}$", example = "001"))]
        bank: Field<TextOrNumber>,
        /// Até 5 dígitos, com dígito verificador opcional (1234-5).
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{1,5}(-[0-9X])?$", example = "1234-5"))]
        agency: Field<TextOrNumber>,
        /// Até 12 dígitos, com dígito verificador opcional (12345-6).
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{1,12}(-[0-9X])?$", example = "12345-6"))]
        account: Field<TextOrNumber>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
        operation: Field<String>,
    }
}

wire_body! {
    /// `pixAutomatico`, optional when paying by `PIX AUTOMÁTICO`: the payer's account, so that their
    /// bank asks them to authorise the recurrence (jornada 1). Without it the customer receives the
    /// recurrence's QR code with the signing link (jornada 2).
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(
            description = "`pixAutomatico`, opcional quando o pagamento é `PIX AUTOMÁTICO`: a conta do pagador, para que o banco dele lhe peça a autorização da recorrência (jornada 1). Sem ela, o cliente recebe o QR code da recorrência com o link de assinatura (jornada 2)."
        )
    )]
    pub struct PixAutomaticoBody => PixAutomaticoMembers {
        /// ISPB do banco do pagador (8 caracteres).
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^[0-9A-Z]{8}$", example = "60701190"))]
        ispb: Field<TextOrNumber>,
        /// Agência, de 1 a 4 dígitos (opcional).
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, pattern = r"^\d{1,4}$", example = "0001"))]
        agencia: Field<TextOrNumber>,
        /// Conta, até 20 dígitos, com dígito verificador opcional (12345-6).
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^\d{1,19}(-?\d)?$", example = "12345-6"))]
        conta: Field<TextOrNumber>,
    }
}

wire_body! {
    /// One of route 5's `beneficiaries`.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(
            description = "Um beneficiário do capital segurado (decisão 279): nome completo, CPF e nascimento opcionais, parentesco e a parte em percentual inteiro; as partes somam 100. Sem beneficiários, metade do capital vai ao cônjuge, se houver, e o restante aos herdeiros (Lei 15.040/2024, art. 115)."
        )
    )]
    pub struct BeneficiaryBody => BeneficiaryMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "João da Silva"))]
        name: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, pattern = r"^(\d{11}|\d{3}\.\d{3}\.\d{3}-\d{2})$", example = "12345678909"))]
        cpf: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, pattern = r"^\d{4}-\d{2}-\d{2}", example = "2015-03-20"))]
        birth_date as "birthDate": Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Kinship))]
        kinship: Field<String>,
        /// Percentual inteiro do capital, de 1 a 100.
        #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, maximum = 100, example = 100))]
        share: Field<i64>,
    }
}

wire_body! {
    /// Route 5's body. `discountOnSheet` is required for `DESCONTO EM FOLHA`, `debitAccount` for
    /// `DÉBITO EM CONTA`.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(
            description = "Corpo da rota 5. `discountOnSheet` é obrigatório para `DESCONTO EM FOLHA`, `debitAccount` para `DÉBITO EM CONTA`."
        )
    )]
    pub struct ProposalBody => ProposalMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 5002))]
        billing_code as "billingCode": Field<i64>,
        #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 101))]
        product_code as "productCode": Field<i64>,
        #[cfg_attr(feature = "openapi", schema(value_type = PaymentType))]
        type_of_payments as "typeOfPayments": Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = ShippingType))]
        shipping_type as "shippingType": Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = ProposalCustomerBody))]
        customer: Field<ProposalCustomerBody>,
        #[cfg_attr(feature = "openapi", schema(value_type = ProposalAddressBody))]
        address: Field<ProposalAddressBody>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<DiscountOnSheetBody>))]
        discount_on_sheet as "discountOnSheet": Field<DiscountOnSheetBody>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<DebitAccountBody>))]
        debit_account as "debitAccount": Field<DebitAccountBody>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<PixAutomaticoBody>))]
        pix_automatico as "pixAutomatico": Field<PixAutomaticoBody>,
        /// Os beneficiários do capital (até 10, partes somando 100); ausente ou vazio: os herdeiros
        /// legais. Obrigatório só num produto que o exige.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<BeneficiaryBody>>))]
        beneficiaries: Field<Vec<Field<BeneficiaryBody>>>,
    }
}

wire_body! {
    /// Route 6's body: the online shop's proposal.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Corpo da rota 6: a proposta da loja online.")
    )]
    pub struct ShopProposalBody => ShopProposalMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 5004))]
        billing_code as "billingCode": Field<i64>,
        #[cfg_attr(feature = "openapi", schema(value_type = i32, minimum = 1, example = 103))]
        product_code as "productCode": Field<i64>,
        /// `sms` quando ausente.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<ShippingType>))]
        shipping_type as "shippingType": Field<String>,
        /// O parceiro a quem a venda é creditada, se houver.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<i64>))]
        partner_id as "partnerId": Field<i64>,
        #[cfg_attr(feature = "openapi", schema(value_type = ShopCustomerBody))]
        customer: Field<ShopCustomerBody>,
        #[cfg_attr(feature = "openapi", schema(value_type = ProposalAddressBody))]
        address: Field<ProposalAddressBody>,
    }
}

/// A beneficiary as sent, each bad member named with its index.
fn read_beneficiary(b: BeneficiaryBody, r: &mut Reading<'_>, at: &ReadingRules) -> Option<Beneficiary> {
    let b = b.named();
    let name = r.parse(b.name.0, b.name.1, FullName::parse);
    let cpf = r.parse_optional(b.cpf.0, b.cpf.1, Cpf::parse);
    // A beneficiary may be a child: any age a living person has.
    let any_age = AgeBounds {
        min_years: 0,
        max_years: at.rules.age.max_years,
    };
    let birth_date = r.parse_optional(b.birth_date.0, b.birth_date.1, |s| {
        BirthDate::parse(s, at.today, any_age)
    });
    let kinship = r.parse(b.kinship.0, b.kinship.1, Kinship::parse);
    let share = r.integer(b.share.0, b.share.1).and_then(|n| {
        let share = beneficiaries::share(n);
        if share.is_none() {
            r.add(
                b.share.0,
                codes::INVALID_VALUE,
                format!("{} deve ser um percentual inteiro de 1 a 100", b.share.0),
            );
        }
        share
    });
    Some(Beneficiary {
        name: name?,
        cpf,
        birth_date,
        kinship: kinship?,
        share: share?,
    })
}

/// The payment's bodies as route 5 sent them: the one its type asks for is read.
struct PaymentBodies {
    sheet: (&'static str, Field<DiscountOnSheetBody>),
    debit: (&'static str, Field<DebitAccountBody>),
    pix: (&'static str, Field<PixAutomaticoBody>),
}

fn read_payment(
    r: &mut Reading<'_>,
    payment_type: Option<PaymentType>,
    bodies: PaymentBodies,
) -> Option<PaymentDetails> {
    let PaymentBodies { sheet, debit, pix } = bodies;
    match payment_type? {
        PaymentType::PayrollDiscount => r.object(sheet.0, sheet.1, |s, r| {
            let s = s.named();
            let number = r.text_or_number(s.number.0, s.number.1);
            let specie = r.integer(s.specie.0, s.specie.1).and_then(|n| match i32::try_from(n) {
                Ok(specie) if specie > 0 => Some(specie),
                _ => {
                    r.add(
                        s.specie.0,
                        codes::INVALID_VALUE,
                        format!("{} deve ser um inteiro positivo", s.specie.0),
                    );
                    None
                }
            });
            let sheet_type = r.parse(s.r#type.0, s.r#type.1, SheetType::parse);
            Some(PaymentDetails::PayrollDiscount {
                number: number?,
                specie: specie?,
                sheet_type: sheet_type?,
            })
        }),
        PaymentType::AccountDebit => r.object(debit.0, debit.1, |d, r| {
            let d = d.named();
            let bank = r.text_or_number(d.bank.0, d.bank.1);
            let agency = r.text_or_number(d.agency.0, d.agency.1);
            let account = r.text_or_number(d.account.0, d.account.1);
            let operation = r.optional_text_within(d.operation.0, d.operation.1, limits::HOUSE_NUMBER);
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
            let given = !matches!(pix.1, Field::Missing);
            let account = r.optional_object(pix.0, pix.1, |p, r| {
                let p = p.named();
                let ispb = r.text_or_number(p.ispb.0, p.ispb.1);
                let agencia = r.optional_text_or_number(p.agencia.0, p.agencia.1);
                let conta = r.text_or_number(p.conta.0, p.conta.1);
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
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let billing_code = r.code(m.billing_code.0, m.billing_code.1);
        let product_code = r.code(m.product_code.0, m.product_code.1);
        let payment_type = r.parse(m.type_of_payments.0, m.type_of_payments.1, PaymentType::parse);
        let shipping = r.parse(m.shipping_type.0, m.shipping_type.1, ShippingType::parse);
        let customer = r.object(m.customer.0, m.customer.1, |c, r| c.read(r, at));
        let address = r.object(m.address.0, m.address.1, |a, r| a.read(r));
        let bodies = PaymentBodies {
            sheet: m.discount_on_sheet,
            debit: m.debit_account,
            pix: m.pix_automatico,
        };
        let payment = read_payment(&mut r, payment_type, bodies);
        let listed = m.beneficiaries.0;
        let named = r.optional_objects(listed, m.beneficiaries.1, |b, r| read_beneficiary(b, r, at));
        let insured = customer.as_ref().map(|c| &c.cpf);
        beneficiaries::check_list(listed, &named, insured, r.at_this_level().0);
        let request = (|| {
            Some(ProposalRequest {
                billing_code: billing_code?,
                product_code: product_code?,
                payment: payment?,
                shipping: shipping?,
                customer: customer?,
                address: address?,
                beneficiaries: named,
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
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let billing_code = r.code(m.billing_code.0, m.billing_code.1);
        let product_code = r.code(m.product_code.0, m.product_code.1);
        let shipping = r.parse_optional(m.shipping_type.0, m.shipping_type.1, ShippingType::parse);
        let partner_id = r.optional_integer(m.partner_id.0, m.partner_id.1);
        let customer = r.object(m.customer.0, m.customer.1, |c, r| c.read(r, at));
        let address = r.object(m.address.0, m.address.1, |a, r| a.read(r));
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
