import nodemailer from 'nodemailer';

export type InviteMail = { to: string; accountName: string; url: string; locale: string };
export type Mailer = { sendInvite(mail: InviteMail): Promise<void> };

/** Invites go out through SMTP_URL with nodemailer; without it there is no mailer and the link is only shown. */
export function smtpMailer(smtpUrl: string | undefined, from: string): Mailer | undefined {
  if (!smtpUrl) return undefined;
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async sendInvite(mail) {
      const english = mail.locale === 'en';
      await transport.sendMail({
        from,
        to: mail.to,
        subject: english
          ? `You are invited to ${mail.accountName}'s dashboard`
          : `Você foi convidado para o painel de ${mail.accountName}`,
        text: english
          ? `Open this link within 7 days to choose your password and sign in:\n\n${mail.url}\n`
          : `Abra este link em até 7 dias para escolher sua senha e entrar:\n\n${mail.url}\n`,
      });
    },
  };
}
