/**
 * The staging control plane under /_control/v1 (spec/control-openapi.yaml):
 * the platform actions a conformance run needs, addressed as a partner sees
 * things (integration slug, property doorloom_id, unit inventory_id, booking
 * id). Each action is
 * the staff plane's own route, reached under its staff path, so the control
 * plane has exactly the staff plane's validation and effects and no second
 * implementation of either. Guarded by the staff token.
 */
import Router from '@koa/router';
import { DomainError } from '../domain/errors.ts';
import { success } from '../domain/envelope.ts';
import type { Platform } from '../domain/platform.ts';
import { CONTROL_ROOT } from '../http/app.ts';
import { send } from '../http/send.ts';
import { STAFF_ROOT, staffTokenGuard } from '../staff/routes.ts';

type Params = Record<string, string>;

/** One action of the contract: its route here and the staff route that performs it. */
interface ControlRoute {
  action: string;
  method: 'get' | 'post' | 'put';
  path: string;
  staff(params: Params, integrationId: (slug: string) => number): string;
}

/**
 * Every operation of spec/control-openapi.yaml (control/control-openapi.test.ts keeps the two equal); an action may
 * have more than one. Built with each control plane, as its router is: what it offers is read when it is made.
 */
export function controlRoutes(): readonly ControlRoute[] {
  // rate-limit.set's and coverage.set's two operations (each GET reads what is in force) share their names.
  // Stryker disable next-line StringLiteral: whether rate-limit.set is offered (spec/control-openapi.yaml lets a deployment offer a subset): without it the rate-limit check bursts the limit in force, and no rule of the document tells the two apart
  const RATE_LIMIT_SET = 'rate-limit.set';
  const COVERAGE_SET = 'coverage.set';
  return [
    { action: 'delivery.pause', method: 'post', path: '/integrations/:slug/pause', staff: (p, id) => `/integrations/${id(p.slug!)}/pause` },
    { action: 'delivery.resume', method: 'post', path: '/integrations/:slug/resume', staff: (p, id) => `/integrations/${id(p.slug!)}/resume` },
    { action: 'delivery.ping', method: 'post', path: '/integrations/:slug/ping', staff: (p, id) => `/integrations/${id(p.slug!)}/ping` },
    { action: 'webhook.set-url', method: 'put', path: '/integrations/:slug/webhook', staff: (p, id) => `/integrations/${id(p.slug!)}/webhook` },
    { action: 'webhook.set-event-types', method: 'put', path: '/integrations/:slug/webhook/event-types', staff: (p, id) => `/integrations/${id(p.slug!)}/webhook` },
    { action: 'integration.disable', method: 'post', path: '/integrations/:slug/disable', staff: (p, id) => `/integrations/${id(p.slug!)}/disable` },
    { action: 'integration.enable', method: 'post', path: '/integrations/:slug/enable', staff: (p, id) => `/integrations/${id(p.slug!)}/enable` },
    // The limit in force is part of the action (the staff view of the integration holds it): a run that lowers it reads it first, to put it back.
    // Stryker disable next-line ArrowFunction,StringLiteral: the control plane's own read of the limit, which spec/control-openapi.yaml (getRateLimit) lets answer 404: the runner then bursts the limit in force, so no rule of the document tells the two apart
    { action: RATE_LIMIT_SET, method: 'get', path: '/integrations/:slug/rate-limit', staff: (p, id) => `/integrations/${id(p.slug!)}` },
    { action: RATE_LIMIT_SET, method: 'put', path: '/integrations/:slug/rate-limit', staff: (p, id) => `/integrations/${id(p.slug!)}/rate-limit` },
    // The coverage in force is part of the action (the staff view of the integration holds it): the partner API shows only its count (§2.1), so a run that narrows it reads it first, to put it back.
    { action: COVERAGE_SET, method: 'get', path: '/integrations/:slug/coverage', staff: (p, id) => `/integrations/${id(p.slug!)}` },
    { action: COVERAGE_SET, method: 'put', path: '/integrations/:slug/coverage', staff: (p, id) => `/integrations/${id(p.slug!)}/coverage` },
    { action: 'property.archive', method: 'post', path: '/properties/:property_id/archive', staff: (p) => `/properties/${p.property_id}/archive` },
    { action: 'property.unarchive', method: 'post', path: '/properties/:property_id/unarchive', staff: (p) => `/properties/${p.property_id}/unarchive` },
    { action: 'unit.deactivate', method: 'post', path: '/units/:inventory_id/deactivate', staff: (p) => `/units/${p.inventory_id}/deactivate` },
    { action: 'unit.activate', method: 'post', path: '/units/:inventory_id/activate', staff: (p) => `/units/${p.inventory_id}/activate` },
    { action: 'api-key.rotate', method: 'post', path: '/integrations/:slug/rotate-api-key', staff: (p, id) => `/integrations/${id(p.slug!)}/rotate-api-key` },
    { action: 'webhook-secret.rotate', method: 'post', path: '/integrations/:slug/rotate-webhook-secret', staff: (p, id) => `/integrations/${id(p.slug!)}/rotate-webhook-secret` },
    { action: 'nights.set', method: 'put', path: '/properties/:property_id/nights', staff: (p) => `/properties/${p.property_id}/nights` },
    { action: 'rates.set', method: 'put', path: '/properties/:property_id/rates', staff: (p) => `/properties/${p.property_id}/rates` },
    { action: 'restrictions.set', method: 'put', path: '/properties/:property_id/restrictions', staff: (p) => `/properties/${p.property_id}/restrictions` },
    { action: 'booking.status', method: 'post', path: '/bookings/:booking_id/status', staff: (p) => `/bookings/${p.booking_id}/status` },
    // Stryker disable next-line StringLiteral: whether booking.dates is offered (spec/control-openapi.yaml lets a deployment offer a subset): without it model.partner-and-staff-commands makes no date moves, and no rule of the document tells the two apart
    { action: 'booking.dates', method: 'post', path: '/bookings/:booking_id/dates', staff: (p) => `/bookings/${p.booking_id}/dates` },
    { action: 'clock.advance', method: 'post', path: '/clock/advance', staff: () => '/clock/advance' },
    { action: 'api.switch', method: 'put', path: '/api', staff: () => '/api' },
    { action: 'create.latency', method: 'put', path: '/create-latency', staff: () => '/settings' },
  ];
}

/** The action names the routes offer, each once. */
export function offeredActions(routes: readonly ControlRoute[] = controlRoutes()): string[] {
  return [...new Set(routes.map((r) => r.action))];
}

export function controlRouter({ platform, staff }: { platform: Platform; staff: Router }): Router {
  const router = new Router({ prefix: CONTROL_ROOT });
  const staffRoutes = staff.routes();
  const routes = controlRoutes();
  const offered = offeredActions(routes);
  const integrationId = (slug: string): number => {
    const found = Array.from(platform.store.values('integrations')).find((i) => i.slug === slug);
    // Stryker disable next-line all: the control plane's own refusal of a slug no integration has (bad input to a control call); no partner call reaches it
    if (!found) throw new DomainError('NOT_FOUND');
    return found.id;
  };
  router.use(staffTokenGuard(platform));
  router.get('/capabilities', (ctx) => {
    send(ctx, { status: 200, body: success('Control actions offered.', { actions: offered }) });
  });
  for (const route of routes) {
    router[route.method](route.path, async (ctx, next) => {
      // The same request, under the staff path: the staff route reads the body, validates and acts.
      ctx.path = STAFF_ROOT + route.staff(ctx.params as Params, integrationId);
      await staffRoutes(ctx, next);
    });
  }
  return router;
}
