import { TemplateSet } from '../../src/gotemplate/index.js';
import { Exec } from '../../src/gotemplate/exec.js';

/**
 * When the JavaScript stack runs out, the error names the nesting, never the engine's raw
 * "Maximum call stack size exceeded": even when reporting it runs out of stack once more.
 */
describe('stack exhaustion', () => {
  const overflow = () => {
    throw new RangeError('Maximum call stack size exceeded');
  };

  it('a function that runs out of stack is reported as nesting too deeply', () => {
    const set = new TemplateSet({ funcs: { deep: overflow } });
    set.parse('t', '{{ deep }}');
    expect(() => set.execute('t', {})).toThrow(/templates nest too deeply/);
  });

  it('formatting the error running out of stack too still ends as nesting too deeply', () => {
    const set = new TemplateSet({ funcs: { deep: overflow } });
    set.parse('t', '{{ deep }}');
    const errorf = Object.getOwnPropertyDescriptor(Exec.prototype, 'errorf')!.value as (msg: string) => never;
    let calls = 0;
    // The first report (where the stack ran out) overflows as well; an outer frame reports it.
    Exec.prototype.errorf = function (this: Exec, msg: string): never {
      if (calls++ === 0) throw new RangeError('Maximum call stack size exceeded');
      return errorf.call(this, msg);
    };
    try {
      let message = '';
      try {
        set.execute('t', {});
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/templates nest too deeply/);
      expect(message).not.toMatch(/^Maximum call stack size exceeded$/);
    } finally {
      Exec.prototype.errorf = errorf;
    }
  });
});
