/** What a printed boleto carries: the fields of the recibo do pagador and the ficha de compensação. */

export interface BoletoParty {
  name: string;
  /** CPF or CNPJ, digits (or alphanumeric CNPJ) without punctuation. */
  taxId?: string;
  address?: string;
}

export interface BoletoPdfInput {
  bankName?: string;
  beneficiary: BoletoParty;
  payer: BoletoParty;
  /** What the buyer pays, the barcode's value: the document's value plus `surchargeCents`. */
  amountCents: number;
  /** Fine and late interest added to the document's value ("(+) Juros/Multa"); 0 when none. */
  surchargeCents?: number;
  /** 'YYYY-MM-DD'. */
  dueDate: string;
  digitableLine: string;
  barcode: string;
  documentNumber?: string;
  /** As the bank prints it (for Banco do Brasil: agreement + sequence, 17 digits). */
  ourNumber?: string;
  /** Data do documento, 'YYYY-MM-DD'. */
  issueDate?: string;
  /** Data de processamento, 'YYYY-MM-DD'. */
  processingDate?: string;
  /** Agência/Código do beneficiário, as the bank prints it. */
  beneficiaryCode?: string;
  carteira?: string;
  /** Espécie do documento (DM: duplicata mercantil). */
  documentKind?: string;
  /** Aceite: 'N' or 'S'. */
  acceptance?: string;
  instructions?: string[];
  paymentPlace?: string;
  /** Boleto híbrido: the Pix BR Code that pays the same charge, printed as a QR code beside the slip. */
  pixCode?: string;
}
