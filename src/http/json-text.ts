// The text of a JSON body, checked before it is parsed: UTF-8 (JSON's encoding; decoding
// invalid bytes would store U+FFFD in place of what was sent), no deeper than MAX_JSON_DEPTH,
// at most MAX_JSON_VALUES values and no object of more than MAX_JSON_MEMBERS members. Every
// JSON the API takes in goes through here: request bodies and pushes to connector receivers.
import { isUtf8 } from 'node:buffer';
import { AppError } from '../errors.ts';
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_MEMBERS, MAX_JSON_VALUES } from './json-depth.ts';

export function jsonText(body: Buffer): string {
  if (!isUtf8(body)) throw new AppError('invalid_encoding', 400, 'The body is not valid UTF-8; send JSON encoded as UTF-8.');
  const text = body.toString('utf8');
  const problem = jsonShapeProblem(text);
  if (problem === 'too_deep') throw new AppError('too_deep', 400, `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  if (problem === 'too_many_values') {
    throw new AppError(
      'too_many_values',
      413,
      `The JSON body holds more than ${MAX_JSON_VALUES} values (array elements and members); split it.`,
      { extra: { max_values: MAX_JSON_VALUES } },
    );
  }
  if (problem === 'too_many_members') {
    throw new AppError('too_many_members', 413, `An object of the JSON body has more than ${MAX_JSON_MEMBERS} members.`, {
      extra: { max_members: MAX_JSON_MEMBERS },
    });
  }
  return text;
}
