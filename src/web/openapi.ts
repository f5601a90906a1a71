/**
 * The OpenAPI document, generated from the route schemas (@fastify/swagger): served
 * anonymously at GET /openapi.json (it holds no data: paths, parameters and response
 * shapes). Every route under /api, /sync and /webhook has a schema with its responses,
 * and the document names exactly those routes (test/foundation/openapi.test.ts).
 */
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';

async function openapi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'bi-comercial',
        description: 'Back office da distribuidora: sincronização do ERP (/sync/erp), webhook de pedidos (/webhook/partner), planilhas comerciais (/api/**).',
        version: app.ctx.version,
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: '/api/**: BI_COMERCIAL_XLS_API_TOKEN; /sync/erp: ERP_SYNC_ACCESS_TOKEN' },
          partnerSecret: { type: 'apiKey', in: 'header', name: 'X-Partner-Secret' },
        },
      },
    },
    // only the service's contract: the screens, /health and this document stay out
    hideUntagged: false,
    transform: ({ schema, url }) => {
      const inContract = /^\/(api|sync|webhook)(\/|$)/.test(url);
      return { schema: { ...(schema ?? {}), hide: !inContract || (schema as { hide?: boolean } | undefined)?.hide === true } as typeof schema, url };
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

export default fp(openapi, { name: 'openapi' });
