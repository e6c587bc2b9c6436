/** fmt's `%v` as the functions need it (sprig's strval, `toString`, `cat`, `join`): the engine's fmt.ts. */
import { formatValue, formatFloat } from '../fmt.js';
export { formatValue as formatGo };
export const formatFloatV = (f: number): string => formatFloat(f, 'g', -1);
