import { useState } from 'preact/hooks';
import { answer, dashboardClient, type Answer } from '../client.ts';
import { useDashboard } from '../context.ts';
import { daysBefore, money, percent, shortDay, todayIn } from '../format.ts';
import type { MessageKey } from '../i18n.ts';
import { Loading, PageTitle, useLoad } from '../ui.tsx';

type Summary = Answer<'/dashboard/summary', 'get'>;

const RANGES: Array<{ days: number; label: MessageKey }> = [
  { days: 1, label: 'home.today' },
  { days: 7, label: 'home.7days' },
  { days: 30, label: 'home.30days' },
];

export function HomePage() {
  const { session, t, locale } = useDashboard();
  const [days, setDays] = useState(1);
  const to = todayIn(session.account.time_zone);
  const from = daysBefore(to, days - 1);
  const state = useLoad(
    () =>
      answer(dashboardClient.GET('/dashboard/summary', { params: { query: { initial_date: from, final_date: to } } })),
    [from, to],
  );
  const figures = state.data;
  return (
    <section aria-labelledby="page-title">
      <PageTitle>{t('home.title')}</PageTitle>
      <div class="segmented" role="group" aria-label={t('home.range')}>
        {RANGES.map((range) => (
          <button key={range.days} type="button" aria-pressed={days === range.days} onClick={() => setDays(range.days)}>
            {t(range.label)}
          </button>
        ))}
      </div>
      <Loading state={state} />
      {figures && (
        <>
          <dl class="figures">
            <Figure label={t('home.revenue')} value={money(figures.revenue_cents, locale)} testid="revenue" />
            <Figure label={t('home.paidOrders')} value={String(figures.paid_orders)} testid="paid-orders" />
            <Figure
              label={t('home.approval')}
              value={figures.card_approval_rate === null ? '—' : percent(figures.card_approval_rate, locale)}
            />
            <Figure label={t('home.pix')} value={`${figures.pix_paid} / ${figures.pix_generated}`} />
            <Figure label={t('home.boleto')} value={`${figures.boleto_paid} / ${figures.boleto_generated}`} />
            <Figure label={t('home.refunds')} value={`${figures.refunds} · ${money(figures.refunded_cents, locale)}`} />
            <Figure label={t('home.chargebacks')} value={String(figures.chargebacks)} />
          </dl>
          <RevenueChart figures={figures} from={from} to={to} />
        </>
      )}
    </section>
  );
}

function Figure(props: { label: string; value: string; testid?: string }) {
  return (
    <div class="figure">
      <dt>{props.label}</dt>
      <dd data-testid={props.testid}>{props.value}</dd>
    </div>
  );
}

/** Daily revenue as SVG bars, every day of the range (days without sales at zero); a table says the same to a screen reader. */
function RevenueChart({ figures, from, to }: { figures: Summary; from: string; to: string }) {
  const { t, locale } = useDashboard();
  const byDay = new Map(figures.daily.map((day) => [day.day, day.revenue_cents]));
  const days: string[] = [];
  for (let day = from; day <= to; day = daysBefore(day, -1)) days.push(day);
  const max = Math.max(1, ...days.map((day) => byDay.get(day) ?? 0));
  const width = 600;
  const height = 180;
  const slot = width / days.length;
  return (
    <figure class="card chart">
      <figcaption>{t('home.chart')}</figcaption>
      <svg
        viewBox={`0 0 ${width} ${height + 20}`}
        role="img"
        aria-label={`${t('home.chart')}: ${money(figures.revenue_cents, locale)}`}
      >
        {days.map((day, index) => {
          const cents = byDay.get(day) ?? 0;
          const barHeight = Math.round((cents / max) * height);
          return (
            <g key={day}>
              <rect
                x={index * slot + slot * 0.15}
                y={height - barHeight}
                width={slot * 0.7}
                height={Math.max(barHeight, 1)}
                class="bar"
              >
                <title>{`${shortDay(day, locale)}: ${money(cents, locale)}`}</title>
              </rect>
              {(days.length <= 7 || index % 5 === 0) && (
                <text x={index * slot + slot / 2} y={height + 15} text-anchor="middle" class="axis">
                  {shortDay(day, locale)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <table class="sr-only">
        <caption>{t('home.chart')}</caption>
        <tbody>
          {days.map((day) => (
            <tr key={day}>
              <th scope="row">{shortDay(day, locale)}</th>
              <td>{money(byDay.get(day) ?? 0, locale)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
