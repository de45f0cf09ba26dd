import { createTransport } from 'nodemailer';

/**
 * The optional invitation mail (docs/team.md): with SMTP_URL set, an invitation's one-time link is
 * also sent to the invited address. Without it nothing is mailed and the inviter copies the link.
 * A mail that cannot be sent does not undo the invitation: the link is shown either way.
 */
export function createInvitationMailer(options: { url: string; from: string }) {
  const transport = createTransport(options.url);
  return async (to: string, merchantName: string, link: string): Promise<void> => {
    await transport.sendMail({
      from: options.from,
      to,
      subject: `You are invited to ${merchantName} on Tributary`,
      text: [
        `You are invited to the Tributary dashboard of ${merchantName}.`,
        '',
        `Open this link to choose a password and set up two-factor sign-in (it works once, for 7 days):`,
        link,
        '',
        'If you did not expect this, ignore this mail.',
      ].join('\n'),
    });
  };
}
