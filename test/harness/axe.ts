import axe from 'axe-core';
import type { Page } from 'playwright-core';

/**
 * axe-core run inside the page under test. The script is evaluated through the DevTools protocol,
 * which a page's Content-Security-Policy does not govern, so the page keeps its real CSP (a test
 * with CSP bypassed would not notice the page's own script being refused).
 */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    // Runs in the browser: the page's own global, where the evaluated source put `axe`.
    const w = globalThis as unknown as { axe: typeof axe };
    const result = await w.axe.run({ resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return violations;
}

/** The violations a page must not have: axe's serious and critical ones. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  return (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
