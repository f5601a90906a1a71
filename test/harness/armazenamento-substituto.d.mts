/** See armazenamento-substituto.mjs. */
export interface ConsultaSubstituto { tabela: string; bucket: string; filtro: string | null }
export function consultasDoArquivo(texto: string): ConsultaSubstituto[];
export function escreverArmazenamento(sourceUrl: string, storageUrl: string, slot: string, faltando?: number,
  consultas?: ConsultaSubstituto[] | null): Promise<void>;
